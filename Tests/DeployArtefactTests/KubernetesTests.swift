import Foundation
import TestSupport
import Testing

// MARK: - Kubernetes

extension DeployArtefactTests {
    @Test("kubernetes-validate --strict accepts every manifest (Kubernetes 1.27 and the newest schema it has)")
    func kubernetesSchemas() throws {
        let validate = try Self.tool("kubernetes-validate", package: "kubernetes-validate (PyPI, in deploy/.venv)")
        let manifests = try Self.kubernetesFiles().filter { !$0.hasSuffix("kustomization.yaml") }
        #expect(manifests.count >= 5)
        for version in [["-k", "1.27.0"], []] {
            let result = try Self.run(validate, ["--strict", "--quiet"] + version + manifests)
            #expect(result.status == 0, "kubernetes-validate \(version): \(result.stdout)\(result.stderr)")
        }
        let kustomization = Self.object(
            try Self.yaml(file: Self.path("deploy/kubernetes/kustomization.yaml")).first)
        let resources = Self.array(kustomization["resources"]).compactMap(Self.string)
        #expect(!resources.isEmpty)
        for resource in resources {
            #expect(
                FileManager.default.fileExists(atPath: Self.path("deploy/kubernetes/\(resource)")), "\(resource)")
        }
        #expect(!resources.contains("secret.yaml"), "apply -k must not overwrite the real secret")
    }

    @Test(
        "the Kubernetes manifests fit together: probes, drain timing, selectors, ports, secret path, non-root read-only"
    )
    func kubernetesConsistency() throws {
        let k8s = try Manifests()
        let pod = k8s.pod
        let container = k8s.container
        let labels = Self.object(Self.object(Self.object(k8s.deployment["spec"])["template"])["metadata"])["labels"]
        let podLabels = Self.object(labels).compactMapValues(Self.string)
        let selector = Self.labels(Self.object(k8s.deployment["spec"])["selector"])
        #expect(!selector.isEmpty && selector.allSatisfy { podLabels[$0.key] == $0.value })

        // Ports and probes.
        let dockerfile = try Dockerfile(Self.text("deploy/Dockerfile"))
        let imagePort = try #require(dockerfile.environment(stage: dockerfile.finalStage)["LOCSTREAM_PORT"])
        let ports = Self.array(container["ports"]).map(Self.object)
        let containerPort = { (reference: Any?) -> String? in
            if let name = reference as? String {
                return ports.first { Self.string($0["name"]) == name }.flatMap { Self.string($0["containerPort"]) }
            }
            return Self.string(reference)
        }
        #expect(ports.compactMap { Self.string($0["containerPort"]) } == [imagePort])
        let readiness = Self.object(Self.object(container["readinessProbe"])["httpGet"])
        let liveness = Self.object(Self.object(container["livenessProbe"])["httpGet"])
        #expect(Self.string(readiness["path"]) == "/readyz" && containerPort(readiness["port"]) == imagePort)
        #expect(Self.string(liveness["path"]) == "/healthz" && containerPort(liveness["port"]) == imagePort)

        // Drain timing: preStop sleep, then SIGTERM's drain, inside the grace period.
        let preStop = Self.object(Self.object(container["lifecycle"])["preStop"])
        let sleepCommand = Self.array(Self.object(preStop["exec"])["command"]).compactMap(Self.string)
        let sleep = try #require(
            sleepCommand.first == "sleep" ? sleepCommand.last.flatMap(Double.init) : nil,
            "preStop is `sleep N`: \(preStop)")
        #expect(sleep >= 1)
        let settings = k8s.configMapData.merging(Self.flagsAsSettings(k8s.arguments)) { $1 }
        let shutdown = try Self.seconds(
            settings["LOCSTREAM_SHUTDOWN_TIMEOUT"] ?? Self.serverDefault("--shutdown-timeout"))
        let grace = Double(Self.int(pod["terminationGracePeriodSeconds"]) ?? 30)
        #expect(grace > sleep + shutdown, "grace \(grace) s > preStop \(sleep) s + shutdown timeout \(shutdown) s")

        // The PDB and the Service select these pods.
        let budget = Self.object(k8s.kind("PodDisruptionBudget")["spec"])
        #expect(Self.labels(budget["selector"]) == selector)
        let replicas = Self.int(Self.object(k8s.deployment["spec"])["replicas"]) ?? 1
        if let minAvailable = Self.int(budget["minAvailable"]) {
            #expect(minAvailable < replicas, "minAvailable \(minAvailable) would block every eviction")
        } else {
            #expect((Self.int(budget["maxUnavailable"]) ?? 0) >= 1)
        }
        let service = Self.object(k8s.kind("Service")["spec"])
        let serviceSelector = Self.object(service["selector"]).compactMapValues(Self.string)
        #expect(!serviceSelector.isEmpty && serviceSelector.allSatisfy { podLabels[$0.key] == $0.value })
        for port in Self.array(service["ports"]).map(Self.object) {
            #expect(containerPort(port["targetPort"] ?? port["port"]) == imagePort, "Service port \(port)")
        }

        // Security: non-root (the image's user), read-only root, no privileges, no
        // service-link variables (they would collide with LOCSTREAM_ settings).
        let podSecurity = Self.object(pod["securityContext"])
        let containerSecurity = Self.object(container["securityContext"])
        #expect(Self.bool(podSecurity["runAsNonRoot"]) == true)
        let imageUser = dockerfile.last("USER", stage: dockerfile.finalStage)?.split(separator: ":").first
        #expect(Self.string(podSecurity["runAsUser"]) == imageUser.map(String.init))
        #expect(Self.bool(containerSecurity["readOnlyRootFilesystem"]) == true)
        #expect(Self.bool(containerSecurity["allowPrivilegeEscalation"]) == false)
        #expect(
            Self.array(Self.object(containerSecurity["capabilities"])["drop"]).compactMap(Self.string) == ["ALL"])
        #expect(Self.bool(pod["enableServiceLinks"]) == false)
        let mounts = Self.array(container["volumeMounts"]).map(Self.object)
        let volumes = Self.array(pod["volumes"]).map(Self.object)
        let tmp = mounts.first { Self.string($0["mountPath"]) == "/tmp" }
        #expect(
            volumes.contains { Self.string($0["name"]) == Self.string(tmp?["name"]) && $0["emptyDir"] != nil },
            "a writable /tmp beside the read-only root")

        // The JWT secret: the Secret's key, mounted where --jwt-secret-file points.
        #expect(settings["LOCSTREAM_AUTH"] == "jwt")
        let secretFile = try #require(settings["LOCSTREAM_JWT_SECRET_FILE"])
        let secret = k8s.kind("Secret")
        let secretName = try #require(Self.string(Self.object(secret["metadata"])["name"]))
        let keys = Set(Self.object(secret["stringData"]).keys).union(Self.object(secret["data"]).keys)
        let volume = try #require(
            volumes.first { Self.string(Self.object($0["secret"])["secretName"]) == secretName },
            "a volume of the Secret")
        let mount = try #require(mounts.first { Self.string($0["name"]) == Self.string(volume["name"]) })
        let mountPath = try #require(Self.string(mount["mountPath"]))
        #expect(keys.contains { "\(mountPath)/\($0)" == secretFile }, "\(secretFile) is a key of \(secretName)")
        #expect(Self.bool(mount["readOnly"]) == true)
        let configMapName = Self.string(Self.object(k8s.configMap["metadata"])["name"])
        #expect(
            Self.array(container["envFrom"]).map(Self.object).contains {
                Self.string(Self.object($0["configMapRef"])["name"]) == configMapName
            })
    }

    @Test("the pod's settings start the real binary; the placeholder secret and service-link variables would not")
    func kubernetesSettings() throws {
        let k8s = try Manifests()
        var environment = k8s.configMapData
        for variable in Self.array(k8s.container["env"]).map(Self.object) {
            let name = try #require(Self.string(variable["name"]))
            // A value, or a fieldRef to the pod's name.
            environment[name] = Self.string(variable["value"]) ?? "locstream-5d9c7b8f4-x2x7q"
        }
        // The secret as it will be mounted, with a real 48-byte secret and then the placeholder.
        let directory = try Self.temporaryDirectory()
        let secretPath = try #require(
            k8s.configMapData.merging(Self.flagsAsSettings(k8s.arguments)) { $1 }["LOCSTREAM_JWT_SECRET_FILE"])
        let local = directory.appendingPathComponent("secret").path
        let arguments = k8s.arguments.map { $0 == secretPath ? local : $0 }
        environment = environment.mapValues { $0 == secretPath ? local : $0 }
        try Data(String(repeating: "k", count: 48).utf8).write(to: URL(fileURLWithPath: local))
        let config = try Self.printConfig(arguments, environment: environment)
        #expect(config.status == 0, "stream-server refuses the pod's settings: \(config.stderr)")
        #expect(config.settings["auth"]?.hasPrefix("jwt(") == true)

        let placeholder = try #require(Self.string(Self.object(k8s.kind("Secret")["stringData"]).values.first))
        try Data(placeholder.utf8).write(to: URL(fileURLWithPath: local))
        let refused = try Self.printConfig(arguments, environment: environment)
        #expect(
            refused.status == 2 && refused.stderr.contains("jwt-secret"), "the placeholder secret must not start")

        // What Kubernetes would inject for each Service with enableServiceLinks on.
        for service in k8s.all(kind: "Service") {
            let name = (Self.string(Self.object(service["metadata"])["name"]) ?? "").uppercased()
                .replacingOccurrences(of: "-", with: "_")
            let port =
                Self.string(Self.object(Self.array(Self.object(service["spec"])["ports"]).first)["port"]) ?? "80"
            let links = [
                "\(name)_SERVICE_HOST": "10.0.0.1", "\(name)_SERVICE_PORT": port,
                "\(name)_PORT": "tcp://10.0.0.1:\(port)", "\(name)_PORT_\(port)_TCP": "tcp://10.0.0.1:\(port)",
                "\(name)_PORT_\(port)_TCP_PROTO": "tcp", "\(name)_PORT_\(port)_TCP_PORT": port,
                "\(name)_PORT_\(port)_TCP_ADDR": "10.0.0.1",
            ]
            try Data(String(repeating: "k", count: 48).utf8).write(to: URL(fileURLWithPath: local))
            let linked = try Self.printConfig(arguments, environment: environment.merging(links) { $1 })
            if linked.status != 0 {
                #expect(
                    Self.bool(k8s.pod["enableServiceLinks"]) == false,
                    "Service \(name)'s link variables stop the server: \(linked.stderr)")
            }
        }
    }
}
