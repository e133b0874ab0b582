import Foundation
import TestSupport
import Testing

@testable import LocationStore

/// `--store-cpus`: the lists it reads, and where the store's threads then run.
@Suite("store: the CPUs of its threads")
struct StoreCPUsTests {
    @Test(
        "lists of numbers and ranges are read in any order, and said in their shortest form",
        arguments: [
            ("0", [0], "0"), ("6,0-3,2", [0, 1, 2, 3, 6], "0-3,6"), (" 1 , 3 ", [1, 3], "1,3"),
            ("1023", [1023], "1023"), ("4-4", [4], "4"), ("0-1,2-3", [0, 1, 2, 3], "0-3"),
        ])
    func reads(text: String, cpus: [Int], shortest: String) throws {
        let list = try #require(StoreCPUs(parsing: text))
        #expect(list.cpus == cpus)
        #expect(list.description == shortest)
    }

    @Test(
        "anything else is not a list: empty parts, open or falling ranges, words, CPUs from 1024 on",
        arguments: ["", "a", "1-", "-1", "3-1", "1024", "0-1024", "0,,1", "1-2-3", "0x1", "1,"])
    func refuses(text: String) {
        #expect(StoreCPUs(parsing: text) == nil)
    }

    @Test("the writer and the checkpointer run on the CPU given; the opening thread stays where it was")
    func pinsTheThreads() async throws {
        let before = try allowedCPUs(of: "thread-self")
        guard let allowed = StoreCPUs(parsing: before), let cpu = allowed.cpus.last, allowed.cpus.count > 1 else {
            print(
                "skipped: this test process may run on one CPU only (\(before)), so a pinned thread looks like any other"
            )
            return
        }
        let names: Set = ["store-writer", "store-checkpt"]
        let earlier = Set(Self.threads(named: names).map(\.id))
        let fixture = try StoreFixture()
        let one = try #require(StoreCPUs(parsing: "\(cpu)"))
        let store = try LocationStore.open(directory: fixture.directory, historySize: 5, cpus: one)
        // The threads name and pin themselves as they start; stores of other tests may open
        // meanwhile, on any CPU, so this one's are among the new ones.
        let pinned = await eventually(within: .seconds(10)) {
            let started = Self.threads(named: names).filter { !earlier.contains($0.id) }
            return names.allSatisfy { name in
                started.contains { $0.name == name && (try? allowedCPUs(of: "self/task/\($0.id)")) == "\(cpu)" }
            }
        }
        #expect(pinned, "a new writer and a new checkpointer run on CPU \(cpu) alone")
        #expect(try allowedCPUs(of: "thread-self") == before)
        store.close()
    }

    @Test("CPUs this machine does not have: refused as unusable, naming them, the directory left free")
    func unusable() throws {
        guard ProcessInfo.processInfo.processorCount < 1000 else {
            print("skipped: this machine may have a CPU 1023")
            return
        }
        let fixture = try StoreFixture()
        #expect {
            _ = try LocationStore.open(
                directory: fixture.directory, historySize: 5, cpus: StoreCPUs(parsing: "1000-1023"))
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .unusableCPUs && error.reason.contains("CPUs 1000-1023")
        }
        try fixture.open().close()
    }

    /// This process's threads called one of `names`, with their kernel ids.
    static func threads(named names: Set<String>) -> [(id: Int, name: String)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            guard let id = Int(task),
                let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            else { return nil }
            let name = comm.trimmingCharacters(in: .whitespacesAndNewlines)
            return names.contains(name) ? (id, name) : nil
        }
    }
}
