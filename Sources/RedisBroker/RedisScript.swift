import COpenSSL

/// A Lua script run with `EVALSHA`, falling back to `EVAL` when Redis lost its script
/// cache (a restart, or `SCRIPT FLUSH`).
struct RedisScript: Sendable {
    /// The Lua source.
    let source: String
    /// Its SHA-1 in hex, as Redis names cached scripts.
    let sha: String

    init(_ source: String) {
        self.source = source
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        let bytes = Array(source.utf8)
        _ = EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha1(), nil)
        sha = digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// `EVALSHA` of this script with no declared keys and `arguments`.
    func evalSHA(_ arguments: [[UInt8]]) -> RedisCommand {
        RedisCommand(["EVALSHA", sha, "0"], trailing: arguments)
    }

    /// `EVAL` of this script's source with no declared keys and `arguments`.
    func eval(_ arguments: [[UInt8]]) -> RedisCommand {
        RedisCommand(["EVAL", source, "0"], trailing: arguments)
    }
}

/// locstream's scripts. Each runs atomically in Redis, so every node sees one order of
/// a device's updates. The first line declares Redis 7 flags: scripts that write are
/// refused whole, before they start, when Redis is over `maxmemory`.
///
/// Seqs and epochs. Every seq Redis hands out is above the *seq floor*, and every epoch
/// (one incarnation of the data: `locstream:epoch` names the Redis process it began
/// in) starts with a new floor: the current time in microseconds, the larger of Redis's
/// clock and the node's (or the node's highest seen seq, if that is higher). A device's
/// seq is then `max(its counter + 1, floor + 1)`. Within an epoch a device cannot
/// publish more than once a microsecond, so everything handed out before a loss lies
/// below the next epoch's floor, whichever nodes saw it, and whether or not any node is
/// alive. Microseconds stay below 2^53 (the largest integer a JSON double holds
/// exactly) until the year 2255.
///
/// A new epoch begins when the epoch key is missing (a fresh or flushed Redis, an
/// evicted key: the publish script checks it on every call) or names another Redis
/// process (a restart, which may have lost the tail of its append-only file, or a
/// failover to a replica: checked when a node connects, and once a second while idle).
enum RedisScripts {
    /// Lua shared by the scripts that may begin an epoch: `epochFloor(runID, micros,
    /// hint, always)` returns the floor and how the call began a new epoch (`EpochReport`:
    /// 0 it did not, 1 the epoch key was missing, 2 it named another Redis process; the
    /// last is checked only with `always`).
    private static let epochFunction = """
        local function epochFloor(runID, micros, hint, always)
          local floor = tonumber(redis.call('GET', 'locstream:seqfloor') or '0')
          local epoch = redis.call('GET', 'locstream:epoch')
          if epoch and (epoch == runID or not always) then return floor, 0 end
          local now = redis.call('TIME')
          floor = math.max(floor + 1, tonumber(now[1]) * 1000000 + tonumber(now[2]), tonumber(micros), tonumber(hint))
          redis.call('SET', 'locstream:seqfloor', string.format('%d', floor))
          redis.call('SET', 'locstream:epoch', runID)
          if epoch then return floor, 2 end
          return floor, 1
        end
        """

    /// Begins a new epoch unless the current one belongs to this Redis process. ARGV:
    /// the process's `run_id`, the node's clock in microseconds, the node's highest seen
    /// seq. Returns the floor and how a new epoch began (`EpochReport`).
    static let epoch = RedisScript(
        """
        #!lua
        \(epochFunction)
        local floor, began = epochFloor(ARGV[1], ARGV[2], ARGV[3], true)
        return { floor, began }
        """)

    /// Publishes locations, all in one atomic step. ARGV: the node's Redis `run_id`, its
    /// clock in microseconds and highest seen seq (for a new epoch if the epoch key is
    /// gone), the history length, the most devices the deployment tracks (counted as the
    /// entries of `locstream:last`: a publish naming new devices past it stores nothing
    /// and returns the floor, how a new epoch began, and `max_devices`), then six per location: device, the encoding's head
    /// (up to `"seq":`) and tail, its position line (`cell lat lon`), lon, lat. For
    /// each: the next seq (above the floor), the last-known entry, the geo set (or the
    /// polar hash), the history stream, and one message (`floor`, previous position
    /// line, body; newline-separated) on the device's channel and on the channels of its
    /// new and previous cells. Returns the floor and how a new epoch began
    /// (`EpochReport`), then the seqs.
    static let publish = RedisScript(
        """
        #!lua
        \(epochFunction)
        local floor, began = epochFloor(ARGV[1], ARGV[2], ARGV[3], false)
        local floorText = string.format('%d', floor)
        local maxlen = ARGV[4]
        local out = { floor, began }
        local new, counted = 0, {}
        for i = 6, #ARGV, 6 do
          local device = ARGV[i]
          if not counted[device] and redis.call('HEXISTS', 'locstream:last', device) == 0 then new = new + 1 end
          counted[device] = true
        end
        if new > 0 and redis.call('HLEN', 'locstream:last') + new > tonumber(ARGV[5]) then
          out[3] = 'max_devices'
          return out
        end
        for i = 6, #ARGV, 6 do
          local device, head, tail, line, lon, lat = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5]
          local seqKey = 'locstream:seq:' .. device
          local seq = redis.call('INCR', seqKey)
          if seq <= floor then
            seq = floor + 1
            redis.call('SET', seqKey, string.format('%d', seq))
          end
          local digits = string.format('%d', seq)
          local body = head .. digits .. tail
          local previous = redis.call('HGET', 'locstream:last', device)
          local previousLine = ''
          if previous then previousLine = string.match(previous, '^([^\\n]*)') end
          redis.call('HSET', 'locstream:last', device, line .. '\\n' .. body)
          if math.abs(tonumber(lat)) <= 85.05112878 then
            redis.call('GEOADD', 'locstream:geo', lon, lat, device)
            redis.call('HDEL', 'locstream:polar', device)
          else
            redis.call('ZREM', 'locstream:geo', device)
            redis.call('HSET', 'locstream:polar', device, '1')
          end
          redis.call('XADD', 'locstream:hist:' .. device, 'MAXLEN', maxlen, '0-' .. digits, 'u', body)
          local message = floorText .. '\\n' .. previousLine .. '\\n' .. body
          redis.call('PUBLISH', 'locstream:dev:' .. device, message)
          local cell = string.match(line, '^(%S+)')
          redis.call('PUBLISH', 'locstream:cell:' .. cell, message)
          local previousCell = string.match(previousLine, '^(%S+)')
          if previousCell and previousCell ~= cell then
            redis.call('PUBLISH', 'locstream:cell:' .. previousCell, message)
          end
          out[#out + 1] = seq
        end
        return out
        """)

    /// A device's current seq, then the bodies of its history entries from an ID on.
    /// ARGV: device, first entry ID (`0-{seq}`).
    static let replay = RedisScript(
        """
        #!lua flags=no-writes
        local device = ARGV[1]
        local out = { redis.call('GET', 'locstream:seq:' .. device) or '0' }
        for _, entry in ipairs(redis.call('XRANGE', 'locstream:hist:' .. device, ARGV[2], '+')) do
          out[#out + 1] = entry[2][2]
        end
        return out
        """)

    /// Lua shared by the scripts that read areas: `appendLast(ids, out)` appends to `out`
    /// the last-known entry of each device of `ids` that has one, a thousand at a time.
    private static let appendLastFunction = """
        local function appendLast(ids, out)
          for first = 1, #ids, 1000 do
            local chunk = {}
            for i = first, math.min(first + 999, #ids) do chunk[#chunk + 1] = ids[i] end
            for _, entry in ipairs(redis.call('HMGET', 'locstream:last', unpack(chunk))) do
              if entry then out[#out + 1] = entry end
            end
          end
        end
        """

    /// The last-known entries of devices within a circle of the geo set, plus every
    /// polar device when asked. ARGV: lon, lat, radius in metres, '1' to add polar.
    static let snapshot = RedisScript(
        """
        #!lua flags=no-writes
        \(appendLastFunction)
        local ids = redis.call('GEOSEARCH', 'locstream:geo', 'FROMLONLAT', ARGV[1], ARGV[2], 'BYRADIUS', ARGV[3], 'm')
        if ARGV[4] == '1' then
          for _, id in ipairs(redis.call('HKEYS', 'locstream:polar')) do ids[#ids + 1] = id end
        end
        local out = {}
        appendLast(ids, out)
        return out
        """)

    /// The candidates of a geo query: how many devices `GEOSEARCH` returned from the geo
    /// set, then the last-known entries of those devices and, when asked, of every polar
    /// device. ARGV: lon, lat, radius in metres, the most devices to take from the geo set,
    /// `ASC` (nearest first) or `ANY` (the first found), '1' to add polar.
    static let query = RedisScript(
        """
        #!lua flags=no-writes
        \(appendLastFunction)
        local ids
        if ARGV[5] == 'ASC' then
          ids = redis.call('GEOSEARCH', 'locstream:geo', 'FROMLONLAT', ARGV[1], ARGV[2], 'BYRADIUS', ARGV[3], 'm', 'ASC', 'COUNT', ARGV[4])
        else
          ids = redis.call('GEOSEARCH', 'locstream:geo', 'FROMLONLAT', ARGV[1], ARGV[2], 'BYRADIUS', ARGV[3], 'm', 'COUNT', ARGV[4], 'ANY')
        end
        local out = { #ids }
        if ARGV[6] == '1' then
          for _, id in ipairs(redis.call('HKEYS', 'locstream:polar')) do ids[#ids + 1] = id end
        end
        appendLast(ids, out)
        return out
        """)

    /// Every script, loaded into Redis's cache on each connect.
    static let all = [epoch, publish, replay, snapshot, query]
}
