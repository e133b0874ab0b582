import LoadBench
import OptionParsing

extension BenchSettings {
    /// The subcommand's own options, then the common ones.
    static let specs: [OptionSpec] =
        [
            .value("scenario", "NAME", help: "fanout, churn, capacity, slow or storm (required)."),
            .value("duration", "SECONDS", default: "10", help: "Whole seconds of publishing (1 to 3600)."),
            .value("subscribers", "S", default: "100", help: "Subscriber connections (fanout, churn, slow)."),
            .value("devices", "D", default: "100", help: "Devices published for."),
            .value("per-subscriber", "K", default: "1", help: "Devices each subscriber watches, dealt round-robin."),
            .value("rate", "R", default: "1000", help: "Updates per second in total, spread over the devices."),
            .value("publishers", "P", default: "1", help: "Publisher connections; device d goes through d mod P."),
            .value(
                "publish-url", "URL",
                help: "Publishers connect here instead of URL: another node, to measure delivery across nodes."),
            .value("cycle-ms", "MS", default: "5", help: "Publish batch period; each batch has its own ts."),
            .value("attrs-bytes", "N", default: "0", help: "Pad every location with an attrs object of N bytes."),
            .value("switch-ms", "MS", default: "1000", help: "churn: each subscriber switches sub this often."),
            .value("slow", "K", default: "10", help: "slow: subscribers that never read (beside the S others)."),
            .flag("baseline", help: "slow: first run the same load without slow subscribers, for comparison."),
            .value("connections", "N", default: "1000", help: "capacity, storm: connections in total."),
            .value("step", "N", default: "1000", help: "capacity: connections added per step."),
            .value("settle-ms", "MS", default: "1000", help: "capacity: pause after a step before sampling RSS."),
            .value("parallel", "N", default: "256", help: "Handshakes in flight at most."),
            .value("server-pid", "PID", help: "The server's process: CPU % and RSS from /proc/PID."),
            .value("clients", "N", default: "1", help: "lws client service threads (connections dealt over them)."),
            .value(
                "event-loop", "KIND", default: "libev",
                help: "What waits on the bench's sockets: libev (epoll) or poll (lws's own, slow past a few thousand)."),
            .value(
                "source-addresses", "N", default: "4",
                help: "Spread connections over 127.0.0.1..N (only for a 127.x URL)."),
            .value("drain", "SECONDS", default: "3", help: "After publishing, wait at most this long for stragglers."),
            .value(
                "time-limit", "SECONDS", default: "600", help: "Hard cap on the whole run; it then reports what it has."
            ),
            .value("prefix", "TEXT", default: "bench-", help: "Device ids are TEXT0, TEXT1, ..."),
            .value(
                "max-message-bytes", "BYTES", default: "65536",
                help: "Publish batches stay under this (the server's limit)."),
            .value("out", "FILE", help: "Append the JSON report, one line, to FILE."),
            .value("timeline", "FILE", help: "Write per-second samples to FILE, one JSON object per line."),
            .value("label", "TEXT", help: "Free text copied into the report."),
            .value(
                "scheduling", "POLICY", default: "batch",
                help: "This process's threads: batch (SCHED_BATCH, no wake-up preemption) or normal."),
        ] + ConnectionSettings.specs

    /// The `--help` text.
    static var help: String {
        let scenarios = BenchScenario.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n")
        return HelpText.render(
            usage: "stream-client bench URL --scenario fanout|churn|capacity|slow|storm [options]",
            summary: """
                Loads a locstream server and measures it. Scenarios:
                \(scenarios)
                Latency is receive time minus publish time on this host's clock (the publisher records the
                microsecond of each batch's ts). Every run stops by itself: connecting, publishing and draining are
                bounded in time. The human summary goes to stderr; one JSON object goes to stdout (and --out).
                Exit status: 0 when the run completed; 1 when it could not (no connection, server error);
                2 on a usage error.
                """,
            specs: specs, environmentPrefix: nil) + StreamClient.environmentNote
    }
}
