import Testing

/// Every end-to-end suite, run one test at a time: each test starts real server
/// processes, and on a 2-core machine running them all at once would measure the
/// machine's load rather than the server.
@Suite(.serialized) enum EndToEnd {}
