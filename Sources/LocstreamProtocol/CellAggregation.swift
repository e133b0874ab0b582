/// The `aggregate` of an area subscription (v1.1): count devices per grid cell of
/// `cellDegrees` × `cellDegrees` instead of streaming their locations.
public struct CellAggregation: Sendable, Equatable {
    /// The cell sizes a client may ask for, in degrees.
    public static let cellDegreesRange: ClosedRange<Double> = 0.0001...90

    /// The side of a cell in degrees; cells are aligned at 180° W and 90° S.
    public var cellDegrees: Double

    /// Cells of `cellDegrees` degrees.
    public init(cellDegrees: Double) {
        self.cellDegrees = cellDegrees
    }
}

extension CellAggregation {
    /// Decodes `{"cell_deg":d}`.
    init(json: JSONValue, op: String?) throws(ProtocolError) {
        let fields = try FieldReader(
            object: json, name: "aggregate", expectation: "an object with cell_deg, the cell size in degrees", op: op)
        let range = Self.cellDegreesRange
        self.init(
            cellDegrees: try fields.required(
                "cell_deg", .number(in: range, "a number of degrees from \(range.lowerBound) to \(range.upperBound)")))
    }

    /// Writes `{"cell_deg":d}`.
    func append(to bytes: inout [UInt8]) {
        var writer = JSONObjectWriter(openBrace: true)
        writer.number("cell_deg", cellDegrees)
        bytes.append(contentsOf: writer.finish())
    }
}
