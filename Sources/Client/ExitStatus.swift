/// The exit statuses of `stream-client`.
enum ExitStatus {
    /// The command did what it was asked.
    static let success: Int32 = 0
    /// It could not: a connection failed, the server refused, no answer came.
    static let failure: Int32 = 1
    /// The command line was wrong.
    static let usage: Int32 = 2
}
