/// The fast path of `ServerMessage.decode` for the frame a client receives most: a `loc`
/// frame as the server writes it (compact, ASCII strings without escapes, no `attrs`).
///
/// It reads the bytes once, builds no `JSONValue` and no dictionary, and parses most numbers
/// without text. It accepts only frames the general decoder accepts, and decodes them to the
/// same `Location`, bit for bit: a number is computed from its digits when one IEEE operation
/// gives the correctly rounded value (at most 2^53 as digits, at most 22 decimals: Clinger's
/// fast path), and otherwise read with `Double(String)` from its text, as the general decoder
/// reads it. For anything else (whitespace, escapes, non-ASCII bytes, exponents, nested
/// values, `attrs`, a field repeated, a value out of its range, another op) it returns nil and
/// the general decoder decides, with its error messages.
enum LocFrameDecoder {
    /// The location of a `loc` frame and its `sub`, or nil when the general decoder must look.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> ServerMessage? {
        var reader = Reader(bytes: bytes)
        return reader.frame()
    }

    /// The members the decoder knows; a bit each, to refuse a repeated one.
    private enum Key: UInt16 {
        case op = 1
        case sub = 2
        case device = 4
        case lat = 8
        case lon = 16
        case ts = 32
        case seq = 64
        case speed = 128
        case heading = 256
        case acc = 512
        case attrs = 1024
    }

    /// A JSON number without exponent, as its parts.
    private struct Digits {
        /// Where the number's text lies in the frame.
        var text: Range<Int>
        var negative: Bool
        /// Every digit, the fraction's included, as one integer (exact when `count` ≤ 19).
        var mantissa: UInt64
        /// How many digits there are.
        var count: Int
        /// How many of the digits follow the decimal point (0 without one).
        var fractionDigits: Int
        var hasPoint: Bool

        /// The correctly rounded `Double`: from the digits when one operation gives it, else
        /// from the text, as the general decoder reads it (`Double(String)`).
        func double(in bytes: UnsafeBufferPointer<UInt8>) -> Double? {
            guard count <= 19, mantissa <= 1 << 53, fractionDigits <= 22 else {
                let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[text]), as: UTF8.self))
                return value.flatMap { $0.isFinite ? $0 : nil }
            }
            let magnitude =
                fractionDigits == 0 ? Double(mantissa) : Double(mantissa) / Digits.powersOfTen[fractionDigits]
            return negative ? -magnitude : magnitude
        }

        /// The value of a non-negative integer of at most 19 digits written without a point;
        /// else nil.
        var integer: UInt64? {
            negative || hasPoint || count > 19 ? nil : mantissa
        }

        /// 10^0 … 10^22: each exactly a `Double`.
        static let powersOfTen: [Double] = (0...22).map { exponent in
            var value = 1.0
            for _ in 0..<exponent { value *= 10 }
            return value
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func frame() -> ServerMessage? {
            guard take(.openBrace) else { return nil }
            var seen: UInt16 = 0
            var isLoc = false
            var sub: String?
            var device: String?
            var lat: Double?
            var lon: Double?
            var ts: UInt64?
            var seq: UInt64?
            var speed: Double?
            var heading: Double?
            var acc: Double?
            while true {
                guard let name = string(), take(.colon) else { return nil }
                let key = Self.key(name, in: bytes)
                if let key {
                    guard seen & key.rawValue == 0 else { return nil }
                    seen |= key.rawValue
                }
                switch key {
                case .op:
                    guard let op = string(), op.count == 3, bytes[op.lowerBound] == UInt8(ascii: "l"),
                        bytes[op.lowerBound + 1] == UInt8(ascii: "o"), bytes[op.lowerBound + 2] == UInt8(ascii: "c")
                    else { return nil }
                    isLoc = true
                case .sub:
                    guard let range = string(), (1...ProtocolLimits.maxIdLength).contains(range.count) else {
                        return nil
                    }
                    sub = text(range)
                case .device:
                    guard let range = string(), Self.isDeviceID(range, in: bytes) else { return nil }
                    device = text(range)
                case .lat:
                    guard let value = number()?.double(in: bytes), (-90...90).contains(value) else { return nil }
                    lat = value
                case .lon:
                    guard let value = number()?.double(in: bytes), (-180...180).contains(value) else { return nil }
                    lon = value
                case .ts:
                    guard let value = number()?.integer, value <= UInt64(ProtocolLimits.maxTimestamp) else {
                        return nil
                    }
                    ts = value
                case .seq:
                    guard let value = number()?.integer, value <= UInt64(Int64.max) else { return nil }
                    seq = value
                case .speed:
                    guard let value = number()?.double(in: bytes), value >= 0 else { return nil }
                    speed = value
                case .heading:
                    guard let value = number()?.double(in: bytes), (0...360).contains(value) else { return nil }
                    heading = value
                case .acc:
                    guard let value = number()?.double(in: bytes), value >= 0 else { return nil }
                    acc = value
                case .attrs:
                    return nil
                case nil:
                    guard skipScalar() else { return nil }
                }
                if take(.comma) { continue }
                guard take(.closeBrace), index == bytes.count else { return nil }
                break
            }
            guard isLoc, let sub, let device, let lat, let lon, let ts, let seq else { return nil }
            let location = Location(
                device: device, lat: lat, lon: lon, ts: Int64(ts), seq: seq, speed: speed, heading: heading, acc: acc)
            return .loc(sub: sub, location: location)
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// The content of a string of printable ASCII without escapes; nil for anything else.
        private mutating func string() -> Range<Int>? {
            guard take(.quote) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == .quote {
                    index += 1
                    return start..<(index - 1)
                }
                guard byte >= 0x20, byte < 0x7F, byte != .backslash else { return nil }
                index += 1
            }
            return nil
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)?` followed by `,` or `}`; nil for anything else
        /// (an exponent).
        private mutating func number() -> Digits? {
            let start = index
            var digits = Digits(
                text: start..<start, negative: take(.minus), mantissa: 0, count: 0, fractionDigits: 0, hasPoint: false)
            var count = 0
            let integerStart = index
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                digits.mantissa = digits.mantissa &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0"))
                count += 1
                index += 1
            }
            let integerDigits = index - integerStart
            guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
            if take(.period) {
                digits.hasPoint = true
                let fractionStart = index
                while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                    digits.mantissa = digits.mantissa &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0"))
                    count += 1
                    index += 1
                }
                digits.fractionDigits = index - fractionStart
                guard digits.fractionDigits > 0 else { return nil }
            }
            guard index < bytes.count, bytes[index] == .comma || bytes[index] == .closeBrace else { return nil }
            digits.count = count
            digits.text = start..<index
            return digits
        }

        /// Skips a string, a number or a literal (not an array or object).
        private mutating func skipScalar() -> Bool {
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case .quote: return string() != nil
            case .minus, UInt8(ascii: "0")...UInt8(ascii: "9"): return number() != nil
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return false
            }
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            let matches = word.withUTF8Buffer { expected in
                (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
            }
            if matches { index += count }
            return matches
        }

        private func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        /// The member `name` names, or nil for one the decoder does not read.
        private static func key(_ name: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Key? {
            func bytesEqual(_ word: StaticString) -> Bool {
                word.withUTF8Buffer { expected in
                    expected.count == name.count
                        && (0..<name.count).allSatisfy { bytes[name.lowerBound + $0] == expected[$0] }
                }
            }
            switch name.count {
            case 2:
                if bytesEqual("op") { return .op }
                if bytesEqual("ts") { return .ts }
            case 3:
                if bytesEqual("sub") { return .sub }
                if bytesEqual("lat") { return .lat }
                if bytesEqual("lon") { return .lon }
                if bytesEqual("seq") { return .seq }
                if bytesEqual("acc") { return .acc }
            case 5:
                if bytesEqual("speed") { return .speed }
                if bytesEqual("attrs") { return .attrs }
            case 6:
                if bytesEqual("device") { return .device }
            case 7:
                if bytesEqual("heading") { return .heading }
            default:
                break
            }
            return nil
        }

        /// `DeviceID.isValid`, on bytes.
        private static func isDeviceID(_ range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            guard (1...ProtocolLimits.maxIdLength).contains(range.count) else { return false }
            for index in range {
                switch bytes[index] {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"),
                    UInt8(ascii: "-"):
                    continue
                default:
                    return false
                }
            }
            return true
        }
    }
}
