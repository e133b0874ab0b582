import Testing

@testable import LocationStore

/// A commit in the background offers the core once a slice is used up, and only then;
/// at nice 5 it never does.
@Suite("store: background slices")
struct BackgroundSlicesTests {
    @Test("yields once a slice is used up, and only in the background")
    func yieldsWhenDue() {
        for background in [false, true] {
            var due = BackgroundSlices(length: .zero, callsPerClockRead: 1, yieldingWhile: { background })
            let yielded = due.yieldIfDue()
            #expect(yielded == background, "background: \(background)")
            var early = BackgroundSlices(length: .seconds(3600), callsPerClockRead: 1, yieldingWhile: { background })
            let yieldedEarly = early.yieldIfDue()
            #expect(!yieldedEarly, "not before the slice is used up")
        }
    }

    @Test("looks at the clock once every callsPerClockRead calls")
    func clockStride() {
        var slices = BackgroundSlices(length: .zero, callsPerClockRead: 4, yieldingWhile: { true })
        let yields = (1...8).map { _ in slices.yieldIfDue() }
        #expect(yields == [false, false, false, true, false, false, false, true])
    }
}
