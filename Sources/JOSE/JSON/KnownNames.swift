/// Member names that appear in nearly every JOSE header, JWK and JWT. The
/// parser returns these constants instead of building a `String` from the
/// bytes, saving UTF-8 validation per member. Generated: each name's bytes
/// are packed little-endian into two `UInt64` words and matched by a `switch`.
enum KnownNames {
    /// The constant for `count` bytes at `base`, or `nil` when they are not a known name.
    @inline(__always)
    static func name(_ base: UnsafePointer<UInt8>, count: Int) -> String? {
        guard count > 0, count <= 16 else { return nil }
        var low: UInt64 = 0
        var high: UInt64 = 0
        for i in 0..<min(count, 8) { low |= UInt64(base[i]) << (8 * UInt64(i)) }
        if count > 8 { for i in 8..<count { high |= UInt64(base[i]) << (8 * UInt64(i - 8)) } }
        switch (low, high) {
        case (0x0000000000676C61, 0x0000000000000000): return "alg"
        case (0x000000000064696B, 0x0000000000000000): return "kid"
        case (0x0000000000707974, 0x0000000000000000): return "typ"
        case (0x0000000000797463, 0x0000000000000000): return "cty"
        case (0x0000000074697263, 0x0000000000000000): return "crit"
        case (0x0000000000343662, 0x0000000000000000): return "b64"
        case (0x0000000000756B6A, 0x0000000000000000): return "jku"
        case (0x00000000006B776A, 0x0000000000000000): return "jwk"
        case (0x0000000000753578, 0x0000000000000000): return "x5u"
        case (0x0000000000633578, 0x0000000000000000): return "x5c"
        case (0x0000000000743578, 0x0000000000000000): return "x5t"
        case (0x3635325323743578, 0x0000000000000000): return "x5t#S256"
        case (0x0000000000636E65, 0x0000000000000000): return "enc"
        case (0x000000000070697A, 0x0000000000000000): return "zip"
        case (0x000000000079746B, 0x0000000000000000): return "kty"
        case (0x0000000000657375, 0x0000000000000000): return "use"
        case (0x0073706F5F79656B, 0x0000000000000000): return "key_ops"
        case (0x0000000000767263, 0x0000000000000000): return "crv"
        case (0x0000000000000078, 0x0000000000000000): return "x"
        case (0x0000000000000079, 0x0000000000000000): return "y"
        case (0x0000000000000064, 0x0000000000000000): return "d"
        case (0x000000000000006E, 0x0000000000000000): return "n"
        case (0x0000000000000065, 0x0000000000000000): return "e"
        case (0x0000000000000070, 0x0000000000000000): return "p"
        case (0x0000000000000071, 0x0000000000000000): return "q"
        case (0x0000000000007064, 0x0000000000000000): return "dp"
        case (0x0000000000007164, 0x0000000000000000): return "dq"
        case (0x0000000000006971, 0x0000000000000000): return "qi"
        case (0x000000000000006B, 0x0000000000000000): return "k"
        case (0x000000007379656B, 0x0000000000000000): return "keys"
        case (0x000000000068746F, 0x0000000000000000): return "oth"
        case (0x0000000000737369, 0x0000000000000000): return "iss"
        case (0x0000000000627573, 0x0000000000000000): return "sub"
        case (0x0000000000647561, 0x0000000000000000): return "aud"
        case (0x0000000000707865, 0x0000000000000000): return "exp"
        case (0x000000000066626E, 0x0000000000000000): return "nbf"
        case (0x0000000000746169, 0x0000000000000000): return "iat"
        case (0x000000000069746A, 0x0000000000000000): return "jti"
        case (0x00000065636E6F6E, 0x0000000000000000): return "nonce"
        case (0x6D69745F68747561, 0x0000000000000065): return "auth_time"
        case (0x0000000000726361, 0x0000000000000000): return "acr"
        case (0x0000000000726D61, 0x0000000000000000): return "amr"
        case (0x0000000000707A61, 0x0000000000000000): return "azp"
        case (0x00687361685F7461, 0x0000000000000000): return "at_hash"
        case (0x0000687361685F63, 0x0000000000000000): return "c_hash"
        case (0x0000000000646973, 0x0000000000000000): return "sid"
        case (0x0000006C69616D65, 0x0000000000000000): return "email"
        case (0x65765F6C69616D65, 0x0000646569666972): return "email_verified"
        case (0x00000000656D616E, 0x0000000000000000): return "name"
        case (0x616E5F6E65766967, 0x000000000000656D): return "given_name"
        case (0x6E5F796C696D6166, 0x0000000000656D61): return "family_name"
        case (0x6E5F656C6464696D, 0x0000000000656D61): return "middle_name"
        case (0x656D616E6B63696E, 0x0000000000000000): return "nickname"
        case (0x00656C69666F7270, 0x0000000000000000): return "profile"
        case (0x0065727574636970, 0x0000000000000000): return "picture"
        case (0x0065746973626577, 0x0000000000000000): return "website"
        case (0x00007265646E6567, 0x0000000000000000): return "gender"
        case (0x7461646874726962, 0x0000000000000065): return "birthdate"
        case (0x6F666E69656E6F7A, 0x0000000000000000): return "zoneinfo"
        case (0x0000656C61636F6C, 0x0000000000000000): return "locale"
        case (0x756E5F656E6F6870, 0x000000007265626D): return "phone_number"
        case (0x0073736572646461, 0x0000000000000000): return "address"
        case (0x5F64657461647075, 0x0000000000007461): return "updated_at"
        case (0x5F6E6F6973736573, 0x0000006574617473): return "session_state"
        case (0x00000065706F6373, 0x0000000000000000): return "scope"
        case (0x695F746E65696C63, 0x0000000000000064): return "client_id"
        case (0x0000000000666E63, 0x0000000000000000): return "cnf"
        case (0x000073746E657665, 0x0000000000000000): return "events"
        case (0x0000000000646974, 0x0000000000000000): return "tid"
        case (0x000000000064696F, 0x0000000000000000): return "oid"
        case (0x00000073656C6F72, 0x0000000000000000): return "roles"
        case (0x00007370756F7267, 0x0000000000000000): return "groups"
        default: return nil
        }
    }
}
