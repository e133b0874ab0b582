import Testing

@testable import LocstreamProtocol

/// `JSONNumber.exactInteger`: integrality and range from the digits as written.
@Suite struct JSONNumberTests {
    private func integer(_ text: String) throws -> Int64? {
        guard case .number(let number) = try JSONValue(parsing: Array(text.utf8)) else { return nil }
        return number.exactInteger
    }

    @Test(
        arguments: [
            ("-0", 0), ("-0.0", 0), ("0e999999999999", 0), ("1.0", 1), ("1e3", 1000), ("1E+3", 1000), ("100e-2", 1),
            ("9007199254740993.0", 9_007_199_254_740_993), ("90071992547409930e-1", 9_007_199_254_740_993),
            ("9223372036854775807.000", .max), ("-9223372036854775808.0", .min), ("-92233720368547758.08e2", .min),
            ("0.000e5", 0),
        ] as [(String, Int64)])
    func integers(text: String, expected: Int64) throws {
        #expect(try integer(text) == expected)
    }

    @Test(arguments: [
        "0.5", "9007199254740992.5", "100e-3", "1e-400", "9223372036854775808", "9223372036854775807.5",
        "-9223372036854775809", "1e19", "1e-999999999999", "12e-1000000001",
    ])
    func notIntegers(text: String) throws {
        #expect(try integer(text) == nil)
    }

    @Test func textIsKept() throws {
        #expect(try JSONValue(parsing: Array("-0".utf8)).encoded() == Array("-0".utf8))
        #expect(JSONValue.number(JSONNumber(0.25)).encoded() == Array("0.25".utf8))
    }
}
