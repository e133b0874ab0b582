/// One cell of a `cells` frame (v1.1): the devices an aggregated area subscription counts
/// in it, and their mean position (the cell's centre when `count` is 0: it just emptied).
public struct CellCount: Sendable, Equatable {
    /// The cell's id, `"row:col"`.
    public var cell: String
    /// The mean latitude of its devices.
    public var lat: Double
    /// The mean longitude of its devices.
    public var lon: Double
    /// How many devices it holds.
    public var count: Int

    /// A cell `cell` holding `count` devices around `lat`, `lon`.
    public init(cell: String, lat: Double, lon: Double, count: Int) {
        self.cell = cell
        self.lat = lat
        self.lon = lon
        self.count = count
    }
}

/// The `cells` frame of an aggregated area subscription (v1.1).
public enum CellsFrame: Sendable {
    /// `{"op":"cells","sub":…,"cells":[{"cell":…,"lat":…,"lon":…,"count":n},…]}`.
    public static func encode(sub: String, cells: [CellCount]) -> [UInt8] {
        var writer = JSONObjectWriter(op: "cells", capacity: 48 + sub.utf8.count + cells.count * 64)
        writer.string("sub", sub)
        writer.key("cells")
        writer.bytes.append(.openBracket)
        for (index, cell) in cells.enumerated() {
            if index > 0 { writer.bytes.append(.comma) }
            var item = JSONObjectWriter(openBrace: true)
            item.string("cell", cell.cell)
            item.number("lat", cell.lat)
            item.number("lon", cell.lon)
            item.integer("count", Int64(cell.count))
            writer.bytes.append(contentsOf: item.finish())
        }
        writer.bytes.append(.closeBracket)
        return writer.finish()
    }
}
