/// What was built: the release version, the git commit and the Swift compiler, for
/// `--version` and the `locstream_build_info` metric. `commit` and `swift` are written
/// before each build by the `BuildStamp` plugin (`Plugins/BuildStamp`).
public enum BuildInfo {
    /// The release version of locstream; raise it with each release.
    public static let version = "0.1.0"

    /// The `--version` line of `program`: `stream-server 0.1.0 (commit 1a2b3c4d5e6f, Swift 6.3.1)`.
    public static func versionLine(_ program: String) -> String {
        "\(program) \(version) (commit \(commit), Swift \(swift))"
    }
}
