import Foundation
import TestSupport
import Testing

// MARK: - Where the embedded broker's store lives

extension DeployArtefactTests {
    /// The data directory every artefact gives the store: `/var/lib/locstream`.
    static let dataDirectory = "/var/lib/locstream"

    @Test("every artefact puts the store's data directory on storage that outlives the process")
    func storeVolumes() throws {
        // The image: the directory, owned by the runtime user, is a VOLUME and the default.
        let dockerfile = try Dockerfile(Self.text("deploy/Dockerfile"))
        let final = dockerfile.finalStage
        #expect(dockerfile.environment(stage: final)["LOCSTREAM_DATA_DIR"] == Self.dataDirectory)
        #expect(dockerfile.last("VOLUME", stage: final) == Self.dataDirectory)
        let user = try #require(dockerfile.last("USER", stage: final))
        let owner = user.split(separator: ":").first.map(String.init) ?? user
        let runs = dockerfile.instructions.filter { $0.stage == final && $0.keyword == "RUN" }.map(\.arguments)
        #expect(
            runs.contains { $0.contains("install -d -o \(owner)") && $0.contains(Self.dataDirectory) },
            "the image creates \(Self.dataDirectory) for user \(owner)")

        // systemd: the unit's state directory, handed to the server.
        let unit = try SystemdUnit(Self.text("deploy/systemd/locstream.service"))
        #expect(unit.values("StateDirectory") == ["locstream"])
        #expect(try Self.unitSettings(unit).environment["LOCSTREAM_DATA_DIR"] == Self.dataDirectory)

        // Kubernetes: a claim of the kustomization, mounted there, one process at a time.
        let k8s = try Manifests()
        let claim = try #require(k8s.all(kind: "PersistentVolumeClaim").first, "a PersistentVolumeClaim")
        let claimName = Self.string(Self.object(claim["metadata"])["name"])
        let volume = try #require(
            Self.array(k8s.pod["volumes"]).map(Self.object).first {
                Self.string(Self.object($0["persistentVolumeClaim"])["claimName"]) == claimName
            }, "a volume of the claim")
        let mount = Self.array(k8s.container["volumeMounts"]).map(Self.object).first {
            Self.string($0["name"]) == Self.string(volume["name"])
        }
        #expect(Self.string(mount?["mountPath"]) == Self.dataDirectory)
        #expect(
            Self.string(Self.object(Self.object(k8s.deployment["spec"])["strategy"])["type"]) == "Recreate",
            "a new pod starts once the old one has let go of the store")
    }
}
