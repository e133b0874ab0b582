import Foundation
import Testing

@testable import LocstreamProtocol

/// The UTF-8 bytes of a test frame.
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// The error `ClientMessage.decode` throws for `input`, or nil when it decodes.
func decodeError(_ input: [UInt8]) -> ProtocolError? {
    do {
        _ = try ClientMessage.decode(input)
        return nil
    } catch {
        return error
    }
}

/// The error `ClientMessage.decode` throws for `text`, or nil when it decodes.
func decodeError(_ text: String) -> ProtocolError? { decodeError(bytes(text)) }

/// Decodes `text`, recording an issue (and returning nil) when it fails.
func decoded(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> ClientMessage? {
    do {
        return try ClientMessage.decode(bytes(text))
    } catch {
        Issue.record("unexpected \(error) for \(text.prefix(200))", sourceLocation: sourceLocation)
        return nil
    }
}

/// A valid location object with `overrides` replacing (or, with nil, removing) raw JSON members.
func locationJSON(_ overrides: [String: String?] = [:]) -> String {
    var members: [(String, String)] = [
        ("device", #""veh-17""#), ("lat", "52.520008"), ("lon", "13.404954"), ("ts", "1764421200123"),
    ]
    for (key, value) in overrides.sorted(by: { $0.key < $1.key }) {
        members.removeAll { $0.0 == key }
        if let value { members.append((key, value)) }
    }
    return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
}

/// A `publish` frame carrying one location built by `locationJSON(_:)`.
func publishFrame(_ overrides: [String: String?] = [:]) -> String {
    #"{"op":"publish","loc":"# + locationJSON(overrides) + "}"
}

/// A `subscribe` frame for sub "A" with the given raw JSON members.
func subscribeFrame(_ members: String) -> String {
    #"{"op":"subscribe","sub":"A","# + members + "}"
}

/// A JSON array literal of `count` distinct valid device ids.
func deviceArray(_ count: Int) -> String {
    "[" + (0..<count).map { "\"d\($0)\"" }.joined(separator: ",") + "]"
}

/// Parses bytes with Foundation, as an independent check of what the encoders wrote.
func foundationObject(_ bytes: [UInt8]) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(bytes))
    return try #require(object as? [String: Any])
}
