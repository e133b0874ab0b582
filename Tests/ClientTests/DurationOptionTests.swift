import OptionParsing
import Testing

/// Durations on the command line (`--retention 7d`): a whole number and a unit.
@Suite("duration options")
struct DurationOptionTests {
    private let range = Duration.seconds(1)...Duration.seconds(3650 * 86_400)

    private func parse(_ value: String) throws(UsageError) -> Duration {
        let specs = [OptionSpec.value("retention", "DURATION", default: "7d", help: "How long.")]
        return try ParsedOptions(arguments: ["--retention", value], specs: specs).duration("retention", in: range)
    }

    @Test("s, m, h and d", arguments: [("30s", 30), ("10m", 600), ("2h", 7200), ("7d", 604_800)])
    func units(_ text: String, seconds: Int64) throws {
        #expect(try parse(text) == .seconds(seconds))
    }

    @Test(
        "no unit, another unit, a fraction, a sign, out of range or absurdly large is a usage error naming the option")
    func refused() {
        for text in ["30", "5w", "1.5h", "-1s", "+1s", "0s", "3651d", "s", "", "99999999999999999999d"] {
            #expect(throws: UsageError.self, "\(text)") { try parse(text) }
        }
        #expect((try? parse("7x")) == nil)
        do {
            _ = try parse("7x")
        } catch {
            #expect(error.description.contains("--retention") && error.description.contains("'7x'"))
        }
    }
}
