package config

// Keys earlier versions wrote, read into today's settings when a file is opened. The first Save
// writes the file without them.

// legacyKVInt8 was the KV cache's switch before kv_cache: true kept the CPU model's cache in
// 8 bits, false (the default) in 32 bits.
const legacyKVInt8 = "kv_int8"

// migrate turns the legacy keys of flat, a flattened settings file, into today's and returns
// flat: kv_int8: true reads as kv_cache: 8-bit (the user asked for the 8-bit cache); false or
// anything else as no kv_cache, the default (auto), since false only meant the old default.
// A kv_cache beside it wins.
func migrate(flat map[string]any) map[string]any {
	v, ok := flat[legacyKVInt8]
	if !ok {
		return flat
	}
	delete(flat, legacyKVInt8)
	if _, set := flat["kv_cache"]; set {
		return flat
	}
	if on, err := coerce(kindBool, v); err == nil && on == true {
		flat["kv_cache"] = KVCache8
	}
	return flat
}
