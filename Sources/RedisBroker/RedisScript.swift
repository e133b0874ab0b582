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
enum RedisScripts {
    /// Publishes locations, all in one atomic step. ARGV: the history length, then six
    /// per location: device, the encoding's head (up to `"seq":`) and tail, its
    /// position line (`cell lat lon`), lon, lat. For each: the next seq (above the
    /// floor), the last-known entry, the geo set (or the polar hash), the history
    /// stream, and one message on the device's channel and on the channels of its new
    /// and previous cells. Returns the seqs.
    static let publish = RedisScript(
        """
        #!lua
        local maxlen = ARGV[1]
        local floor = tonumber(redis.call('GET', 'locstream:seqfloor') or '0')
        local seqs = {}
        for i = 2, #ARGV, 6 do
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
          local message = previousLine .. '\\n' .. body
          redis.call('PUBLISH', 'locstream:dev:' .. device, message)
          local cell = string.match(line, '^(%S+)')
          redis.call('PUBLISH', 'locstream:cell:' .. cell, message)
          local previousCell = string.match(previousLine, '^(%S+)')
          if previousCell and previousCell ~= cell then
            redis.call('PUBLISH', 'locstream:cell:' .. previousCell, message)
          end
          seqs[#seqs + 1] = seq
        end
        return seqs
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

    /// The last-known entries of devices within a circle of the geo set, plus every
    /// polar device when asked. ARGV: lon, lat, radius in metres, '1' to add polar.
    static let snapshot = RedisScript(
        """
        #!lua flags=no-writes
        local ids = redis.call('GEOSEARCH', 'locstream:geo', 'FROMLONLAT', ARGV[1], ARGV[2], 'BYRADIUS', ARGV[3], 'm')
        if ARGV[4] == '1' then
          for _, id in ipairs(redis.call('HKEYS', 'locstream:polar')) do ids[#ids + 1] = id end
        end
        local out = {}
        for first = 1, #ids, 1000 do
          local chunk = {}
          for i = first, math.min(first + 999, #ids) do chunk[#chunk + 1] = ids[i] end
          for _, entry in ipairs(redis.call('HMGET', 'locstream:last', unpack(chunk))) do
            if entry then out[#out + 1] = entry end
          end
        end
        return out
        """)

    /// Raises the seq floor to ARGV[1] if it is lower; returns the floor.
    static let raiseFloor = RedisScript(
        """
        #!lua
        local current = tonumber(redis.call('GET', 'locstream:seqfloor') or '0')
        local wanted = tonumber(ARGV[1])
        if wanted > current then
          redis.call('SET', 'locstream:seqfloor', ARGV[1])
          return wanted
        end
        return current
        """)

    /// Every script, loaded into Redis's cache on each connect.
    static let all = [publish, replay, snapshot, raiseFloor]
}
