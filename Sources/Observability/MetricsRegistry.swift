import Locking

/// The process's metrics, rendered in the Prometheus text format for `/metrics`.
///
/// Metrics are registered once, at start; updating one is a lock-free atomic. Every
/// name gets the `locstream_` prefix, except in the blocks a `collector` writes whole.
public final class MetricsRegistry: Sendable {
    private enum Kind: Sendable {
        case counter(Counter)
        case gauge(Gauge)
        case sampled(@Sendable () -> Int)
        case labeled(LabeledCounter)
        case histogram(Histogram)
        case info([(name: String, value: String)])
        case collector(@Sendable () -> String)
    }

    private struct Entry: Sendable {
        let name: String
        let help: String
        let kind: Kind
    }

    private let entries = Locked<[Entry]>([])

    /// An empty registry.
    public init() {}

    /// Registers a counter.
    public func counter(_ name: String, help: String) -> Counter {
        let counter = Counter()
        register(Entry(name: name, help: help, kind: .counter(counter)))
        return counter
    }

    /// Registers a gauge the program sets.
    public func gauge(_ name: String, help: String) -> Gauge {
        let gauge = Gauge()
        register(Entry(name: name, help: help, kind: .gauge(gauge)))
        return gauge
    }

    /// Registers a gauge read from `sample` each time metrics are rendered.
    public func gauge(_ name: String, help: String, sample: @escaping @Sendable () -> Int) {
        register(Entry(name: name, help: help, kind: .sampled(sample)))
    }

    /// Registers a counter with one label whose values are fixed now.
    public func counter(_ name: String, help: String, label: String, values: [String]) -> LabeledCounter {
        let counter = LabeledCounter(label: label, values: values)
        register(Entry(name: name, help: help, kind: .labeled(counter)))
        return counter
    }

    /// Registers a histogram with the given bucket upper bounds.
    public func histogram(_ name: String, help: String, bounds: [Double]) -> Histogram {
        let histogram = Histogram(bounds: bounds)
        register(Entry(name: name, help: help, kind: .histogram(histogram)))
        return histogram
    }

    /// Registers a gauge of 1 whose labels carry facts, such as `build_info{version=…}`.
    public func info(_ name: String, help: String, labels: [(name: String, value: String)]) {
        register(Entry(name: name, help: help, kind: .info(labels)))
    }

    /// Registers a block of samples that `render` writes whole at each scrape, `HELP` and
    /// `TYPE` lines included, with its names as they are: the standard `process_` metrics.
    public func collector(_ render: @escaping @Sendable () -> String) {
        register(Entry(name: "", help: "", kind: .collector(render)))
    }

    /// The Prometheus text exposition of every metric.
    public func render() -> String {
        var out = ""
        for entry in entries.withLock({ $0 }) {
            if case .collector(let render) = entry.kind {
                out += render()
                continue
            }
            let name = "locstream_" + entry.name
            let type: String
            switch entry.kind {
            case .counter, .labeled: type = "counter"
            case .gauge, .sampled, .info, .collector: type = "gauge"
            case .histogram: type = "histogram"
            }
            out += "# HELP \(name) \(entry.help)\n# TYPE \(name) \(type)\n"
            switch entry.kind {
            case .counter(let counter): out += "\(name) \(counter.count)\n"
            case .gauge(let gauge): out += "\(name) \(gauge.current)\n"
            case .sampled(let sample): out += "\(name) \(sample())\n"
            case .labeled(let counter):
                for sample in counter.samples {
                    out += "\(name){\(counter.label)=\"\(sample.value)\"} \(sample.count)\n"
                }
            case .histogram(let histogram): out += histogram.render(name: name)
            case .info(let labels):
                out += "\(name){\(labels.map { "\($0.name)=\"\($0.value)\"" }.joined(separator: ","))} 1\n"
            case .collector: break
            }
        }
        return out
    }

    private func register(_ entry: Entry) {
        entries.withLock { $0.append(entry) }
    }
}
