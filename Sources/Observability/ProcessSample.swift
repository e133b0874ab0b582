import Foundation

/// One reading of this process's figures from `/proc/self/stat`, `/proc/stat` (the boot
/// time), `/proc/self/fd` and the open-file limit; nil where a figure cannot be read.
struct ProcessSample {
    var cpuSeconds: Double?
    var residentBytes: Int?
    var openFDs: Int?
    var maxFDs: Int?
    var startTimeSeconds: Double?

    /// The figures of this process now.
    static func read() -> ProcessSample {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let stat = (try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8)).flatMap(StatFields.init)
        let bootTime = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)).flatMap(Self.bootTime)
        var limit = rlimit()
        let maxFDs = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(clamping: limit.rlim_cur) : nil
        return ProcessSample(
            cpuSeconds: stat.map { Double($0.cpuTicks) / ticks },
            residentBytes: stat.map { $0.residentPages * sysconf(Int32(_SC_PAGESIZE)) },
            openFDs: (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count,
            maxFDs: maxFDs,
            startTimeSeconds: stat.flatMap { stat in bootTime.map { Double($0) + Double(stat.startTicks) / ticks } })
    }

    /// The `btime` line of `/proc/stat`: the boot time in Unix seconds.
    static func bootTime(_ procStat: String) -> Int? {
        procStat.split(separator: "\n").first { $0.hasPrefix("btime ") }.flatMap { Int($0.dropFirst(6)) }
    }

    /// The figures of `/proc/self/stat` that the metrics need, in clock ticks and pages.
    struct StatFields {
        /// utime + stime.
        var cpuTicks: Int
        /// The start time, after boot.
        var startTicks: Int
        var residentPages: Int

        /// Reads the line; the command name, in parentheses, may hold spaces and parentheses,
        /// so the fields are counted from the last `)` (field 3, the state, comes next).
        init?(_ line: String) {
            guard let close = line.lastIndex(of: ")") else { return nil }
            let fields = line[line.index(after: close)...].split(separator: " ")
            func field(_ number: Int) -> Int? {
                let index = number - 3
                return fields.indices.contains(index) ? Int(fields[index]) : nil
            }
            guard let utime = field(14), let stime = field(15), let start = field(22), let rss = field(24) else {
                return nil
            }
            cpuTicks = utime + stime
            startTicks = start
            residentPages = rss
        }
    }
}
