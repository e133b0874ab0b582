// libFuzzer entry point for token verification: each input is read three ways. As a token
// (`JWTVerifier.verify` on the raw text), as a claims set (`Claims(payload:)` on the bytes),
// and as the payload of a token signed with the fuzzer's HS256 key, which must verify
// exactly when the claims set reads and its times hold. Any crash, hang or sanitizer report
// is a defect, and so is a verdict that breaks the rules below. Built and run by
// `make fuzz-jwt`, which compiles this file with Sources/Auth and Sources/LocstreamProtocol
// as one module.

import Foundation

private let secret = Array("locstream-fuzz-secret-0123456789abcdef".utf8)
private let verifier = JWTVerifier(key: try! JWTKey.secret(bytes: secret), leeway: .seconds(30))
private let now = Date(timeIntervalSince1970: 1_700_000_000)
private let header = base64URL(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokens(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? verifier.verify(token: String(decoding: bytes, as: UTF8.self), now: now)

    let read = Result { () throws(AuthError) in try Claims(payload: JSONFields(json: bytes, part: "payload")) }
    if case .success(let claims) = read {
        if claims.subject.isEmpty { fatalError("an empty sub was read") }
        if claims.devicePatterns.count > PatternSet.maxPatterns || claims.publishPatterns.count > PatternSet.maxPatterns
        {
            fatalError("more than \(PatternSet.maxPatterns) patterns were read")
        }
        let horizon = Duration.seconds(ExpiryMaths.horizonSeconds + 1)
        let left = claims.timeLeft(at: now)
        if left > horizon || left < .zero - horizon { fatalError("time left beyond the horizon") }
    }

    let input = header + "." + base64URL(bytes)
    guard let mac = HMACSHA256.mac(key: secret, message: Array(input.utf8)) else { fatalError("HMAC failed") }
    let verified = Result { () throws(AuthError) in try verifier.verify(token: input + "." + base64URL(mac), now: now) }
    switch (read, verified) {
    case (.success(let claims), .success(let again)):
        if claims != again { fatalError("verify read other claims than the payload holds") }
    case (.success, .failure(let error)):
        let tooLong = input.utf8.count + 44 > CompactJWS.maximumLength
        if ![.expired, .notYetValid].contains(error.reason) && !(tooLong && error.reason == .malformed) {
            fatalError("a readable claims set was refused for \(error.reason)")
        }
    case (.failure, .success):
        fatalError("a token whose claims do not read was accepted")
    case (.failure, .failure):
        break
    }
    return 0
}

/// Unpadded base64url, written here so that the fuzzer does not check the verifier with its own decoder.
private func base64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
