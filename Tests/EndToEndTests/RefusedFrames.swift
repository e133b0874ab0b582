/// Client frames that break a rule of the protocol a JSON Schema can state, one rule each,
/// with the error code the server answers them with: the schemas must refuse them too.
enum RefusedFrames {
    static let all: [(frame: String, code: String)] = [
        (#"["subscribe"]"#, "bad_request"),
        (#"{"sub":"A","devices":["x"]}"#, "bad_request"),
        (#"{"op":"Subscribe","sub":"A","devices":["x"]}"#, "unknown_op"),
        (#"{"op":"subscribe","sub":"","devices":["x"]}"#, "bad_request"),
        (#"{"op":"subscribe","sub":"A"}"#, "bad_request"),
        (#"{"op":"subscribe","sub":"A","devices":[]}"#, "bad_request"),
        (#"{"op":"subscribe","sub":"A","devices":["veh 17"]}"#, "bad_request"),
        (#"{"op":"subscribe","sub":"A","devices":["x"],"area":{"bbox":[1,2,3,4]}}"#, "bad_request"),
        (#"{"op":"subscribe","sub":"A","area":{"bbox":[1,2,3]}}"#, "bad_request"),
        (#"{"op":"subscribe","sub":"A","area":{"center":[13.4,52.5],"radius_m":0}}"#, "bad_request"),
        (#"{"op":"subscribe","sub":"A","devices":["x"],"snapshot":"yes"}"#, "bad_request"),
        (#"{"op":"subscribe","sub":"A","devices":["x"],"aggregate":{"cell_deg":1}}"#, "bad_request"),
        (#"{"op":"subscribe","sub":"A","area":{"bbox":[1,2,3,4]},"aggregate":{"cell_deg":0}}"#, "bad_request"),
        (#"{"op":"subscribe","sub":"A","devices":["x"],"since":{"x":-1}}"#, "bad_request"),
        (#"{"op":"subscribe","sub":"A","devices":["x"],"min_interval_ms":1.5}"#, "bad_request"),
        (#"{"op":"subscribe","sub":"A","devices":["x"],"min_distance_m":-1}"#, "bad_request"),
        (
            #"{"op":"subscribe","sub":"A","devices":["# + Array(repeating: #""x""#, count: 1001).joined(separator: ",")
                + "]}", "too_large"
        ),
        (#"{"op":"publish","ack":true}"#, "bad_request"),
        (#"{"op":"publish","locs":[]}"#, "bad_request"),
        (#"{"op":"publish","loc":{"device":"x","lat":91,"lon":0,"ts":1}}"#, "bad_request"),
        (#"{"op":"publish","loc":{"device":"x","lat":1,"lon":181,"ts":1}}"#, "bad_request"),
        (#"{"op":"publish","loc":{"device":"x","lat":1,"lon":0,"ts":1.5}}"#, "bad_request"),
        (#"{"op":"publish","loc":{"device":"x","lat":1,"lon":0,"ts":-1}}"#, "bad_request"),
        (#"{"op":"publish","loc":{"device":"x","lat":1,"lon":0,"ts":1,"speed":null}}"#, "bad_request"),
        (#"{"op":"publish","loc":{"device":"x","lat":1,"lon":0,"ts":1,"heading":361}}"#, "bad_request"),
        (#"{"op":"publish","loc":{"device":"x","lat":1,"lon":0}}"#, "bad_request"),
        (#"{"op":"ping","t":"1"}"#, "bad_request"),
        (#"{"op":"auth","token":""}"#, "bad_request"),
        (#"{"op":"auth"}"#, "bad_request"),
    ]
}
