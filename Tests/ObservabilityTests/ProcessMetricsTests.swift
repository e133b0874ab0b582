import Testing

@testable import Observability

/// The standard process metrics, read from /proc.
@Suite("process metrics")
struct ProcessMetricsTests {
    @Test("/proc/self/stat fields are counted from the last ')', whatever the command name holds")
    func statFields() {
        let tail = "S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 4 0 12345 1000000 777 18446744073709551615"
        let fields = ProcessSample.StatFields("42 (a) (b c) " + tail)
        #expect(fields?.cpuTicks == 300 && fields?.startTicks == 12345 && fields?.residentPages == 777)
        #expect(ProcessSample.StatFields("42 (cut) S 1 2") == nil)
        #expect(ProcessSample.StatFields("no parenthesis") == nil)
    }

    @Test("the boot time is the btime line of /proc/stat")
    func bootTime() {
        #expect(ProcessSample.bootTime("cpu  1 2 3\nintr 5\nbtime 1764400000\nprocesses 9\n") == 1_764_400_000)
        #expect(ProcessSample.bootTime("cpu 1 2 3\n") == nil)
    }

    @Test("each figure is a HELP, TYPE and sample block; a figure that could not be read is left out")
    func rendering() {
        let text = ProcessMetrics.render(
            ProcessSample(cpuSeconds: 1.5, residentBytes: 4096, openFDs: nil, maxFDs: 1024, startTimeSeconds: 17.25))
        #expect(text.contains("# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1.5\n"))
        #expect(text.contains("# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes 4096\n"))
        #expect(text.contains("process_max_fds 1024\n") && text.contains("process_start_time_seconds 17.25\n"))
        #expect(!text.contains("process_open_fds"))
    }

    @Test("this process's figures are all read on Linux")
    func readsThisProcess() {
        let sample = ProcessSample.read()
        #expect((sample.residentBytes ?? 0) > 0 && (sample.cpuSeconds ?? -1) >= 0)
        #expect((sample.openFDs ?? 0) >= 3 && (sample.openFDs ?? .max) <= (sample.maxFDs ?? 0))
        #expect((sample.startTimeSeconds ?? 0) > 1_700_000_000)
    }
}
