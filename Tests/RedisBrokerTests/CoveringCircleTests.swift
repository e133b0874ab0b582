import LocstreamProtocol
import StreamCore
import Testing

@testable import RedisBroker

@Suite("the circle an area snapshot searches in Redis")
struct CoveringCircleTests {
    @Test("every point inside a box or disc is within the circle, over the globe (the antimeridian and poles included)")
    func containsItsArea() throws {
        var checked = 0
        for area in Self.areas {
            let geo = try GeoArea(area)
            let circle = CoveringCircle(geo)
            #expect(abs(circle.lat) <= CoveringCircle.geoLatitudeLimit)
            for lat in stride(from: -90.0, through: 90, by: 1.5) {
                for lon in stride(from: -180.0, through: 180, by: 1.5) where geo.contains(lat: lat, lon: lon) {
                    checked += 1
                    let distance = GreatCircle.meters(fromLat: circle.lat, lon: circle.lon, toLat: lat, lon: lon)
                    #expect(distance <= circle.radiusMeters, "\(area) point \(lat),\(lon)")
                    if abs(lat) > CoveringCircle.geoLatitudeLimit { #expect(circle.reachesPolar) }
                }
            }
        }
        #expect(checked > 5000)
    }

    /// Boxes and discs of several sizes, centred on a lattice over the globe; boxes
    /// that pass 180° wrap across the antimeridian.
    private static let areas: [Area] = stride(from: -88.0, through: 88, by: 35.2).flatMap { lat in
        stride(from: -175.0, through: 175, by: 70).flatMap { lon -> [Area] in
            [(2.5, 4.0), (6, 20), (20, 45)].flatMap { size -> [Area] in
                let maxLon = lon + size.1 > 180 ? lon + size.1 - 360 : lon + size.1
                return [
                    .bbox(minLon: lon, minLat: max(lat - size.0, -90), maxLon: maxLon, maxLat: min(lat + size.0, 90)),
                    .circle(lon: lon, lat: lat, radiusMeters: size.0 * 111_000),
                ]
            }
        }
    }

    @Test("a city viewport's circle is not much larger than the viewport")
    func tightForCities() throws {
        let viewport = try GeoArea(.bbox(minLon: 13.2, minLat: 52.4, maxLon: 13.6, maxLat: 52.6))
        let circle = CoveringCircle(viewport)
        #expect(circle.radiusMeters < 30_000 && !circle.reachesPolar)
        #expect(abs(circle.lat - 52.5) < 1e-9 && abs(circle.lon - 13.4) < 1e-9)
        let wrapped = CoveringCircle(try GeoArea(.bbox(minLon: 179.9, minLat: -1, maxLon: -179.9, maxLat: 1)))
        #expect(abs(abs(wrapped.lon) - 180) < 1e-9)
    }
}
