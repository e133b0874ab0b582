import Foundation
import ProcessLifecycle
import Testing

@Suite("CPU affinity")
struct CPUAffinityTests {
    @Test(
        "the cores are the bits of Cpus_allowed, over every comma-separated word",
        arguments: [
            ("Name:\tstream-server\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n", 2),
            ("Cpus_allowed:\t2\n", 1),
            ("Cpus_allowed:\tffffffff,ffffffff\n", 64),
            ("Cpus_allowed:\t00000000,00000101\n", 2),
        ])
    func counted(status: String, cores: Int) {
        #expect(CPUAffinity.coreCount(status: status) == cores)
    }

    @Test("without a readable mask it is every online core")
    func fallback() {
        let online = ProcessInfo.processInfo.activeProcessorCount
        #expect(CPUAffinity.coreCount(status: nil) == online)
        #expect(CPUAffinity.coreCount(status: "Cpus_allowed:\tzz\n") == online)
    }

    @Test("this process's own mask reads at least one core and no more than are online")
    func own() {
        let cores = CPUAffinity.coreCount()
        #expect(cores >= 1 && cores <= ProcessInfo.processInfo.activeProcessorCount)
    }
}
