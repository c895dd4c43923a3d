package vmess

import (
	"bytes"
	"testing"
)

// The golden vectors below are written out by hand from the field numbers
// and wire types in the .proto files, not produced by the code under test.
// A tag byte is (field number << 3) | wire type, where wire type 0 is a
// varint (uint32, bool, enum) and 2 is length-delimited (string, bytes,
// message). So in Config: user 1/LEN = 0x0a, default 2/LEN = 0x12,
// detour 3/LEN = 0x1a, secure_encryption_only 4/varint = 0x20. Lengths and
// values are varints: 7 bits per byte, low bits first, high bit set on all
// but the last byte (300 = 0xac 0x02). Fields at their zero value are left
// out (proto3).

// typeURL is User.account's type_url as V2Ray v5 writes it: 16 bytes of
// "types.v2fly.org/" plus the 30-byte full name, 46 = 0x2e bytes in all.
const typeURL = "types.v2fly.org/v2ray.core.proxy.vmess.Account"

var goldenVectors = []struct {
	name string
	json string
	want []byte
}{
	{
		name: "empty",
		json: `{}`,
		// Every field is unset: a proto3 message with nothing set is no bytes.
		want: []byte{},
	},
	{
		name: "secure encryption only",
		json: `{"disableInsecureEncryption": true}`,
		want: bytesOf(
			0x20, 0x01, // Config.secure_encryption_only (4, varint) = true
		),
	},
	{
		name: "one user, default, detour",
		json: `{"clients": [{"id": "` + uuidA + `", "level": 1, "email": "a@b.c"}],
			"default": {"alterId": 4, "level": 1}, "detour": {"to": "dyn"},
			"disableInsecureEncryption": true}`,
		want: bytesOf(
			0x0a, 0x67, // Config.user (1, LEN): 103 bytes
			/**/ 0x08, 0x01, // User.level (1, varint) = 1
			/**/ 0x12, 0x05, "a@b.c", // User.email (2, LEN): 5 bytes
			/**/ 0x1a, 0x5c, // User.account (3, LEN), a google.protobuf.Any: 92 bytes
			/*    */ 0x0a, 0x2e, typeURL, // Any.type_url (1, LEN): 46 bytes
			/*    */ 0x12, 0x2a, // Any.value (2, LEN), a vmess.Account: 42 bytes
			/*        */ 0x0a, 0x24, uuidA, // Account.id (1, LEN): 36 bytes
			/*        */ // Account.alter_id (2) is 0: left out
			/*        */ 0x1a, 0x02, // Account.security_settings (3, LEN): 2 bytes
			/*            */ 0x08, 0x02, // SecurityConfig.type (1, varint) = AUTO (2), the default
			0x12, 0x04, // Config.default (2, LEN): 4 bytes
			/**/ 0x08, 0x04, // DefaultConfig.alter_id (1, varint) = 4
			/**/ 0x10, 0x01, // DefaultConfig.level (2, varint) = 1
			0x1a, 0x05, // Config.detour (3, LEN): 5 bytes
			/**/ 0x0a, 0x03, "dyn", // DetourConfig.to (1, LEN): 3 bytes
			0x20, 0x01, // Config.secure_encryption_only (4, varint) = true
		),
	},
	{
		name: "two users, every account field, multi-byte varints",
		json: `{"clients": [
			{"id": "0123456789abcdef0123456789ABCDEF", "level": 300, "alterId": 64,
			 "email": "carol.long@example.org", "security": "CHACHA20-POLY1305",
			 "experiments": "AuthenticatedLength"},
			{"id": "` + uuidB + `", "security": "zero"}]}`,
		want: bytesOf(
			0x0a, 0x8c, 0x01, // Config.user (1, LEN): 140 bytes (0x8c 0x01 = 12 + 1<<7)
			/**/ 0x08, 0xac, 0x02, // User.level (1, varint) = 300 (0x2c|0x80, 300>>7 = 2)
			/**/ 0x12, 0x16, "carol.long@example.org", // User.email (2, LEN): 22 bytes
			/**/ 0x1a, 0x6f, // User.account (3, LEN): 111 bytes
			/*    */ 0x0a, 0x2e, typeURL, // Any.type_url (1, LEN): 46 bytes
			/*    */ 0x12, 0x3d, // Any.value (2, LEN): 61 bytes
			/*        */ 0x0a, 0x20, "0123456789abcdef0123456789ABCDEF", // Account.id (1, LEN): 32 bytes, kept as written
			/*        */ 0x10, 0x40, // Account.alter_id (2, varint) = 64
			/*        */ 0x1a, 0x02, // Account.security_settings (3, LEN): 2 bytes
			/*            */ 0x08, 0x04, // SecurityConfig.type (1, varint) = CHACHA20_POLY1305 (4)
			/*        */ 0x22, 0x13, "AuthenticatedLength", // Account.tests_enabled (4, LEN): 19 bytes
			0x0a, 0x5e, // Config.user (1, LEN), the second user: 94 bytes
			/**/ // level 0 and an empty email are left out
			/**/ 0x1a, 0x5c, // User.account (3, LEN): 92 bytes
			/*    */ 0x0a, 0x2e, typeURL, // Any.type_url (1, LEN): 46 bytes
			/*    */ 0x12, 0x2a, // Any.value (2, LEN): 42 bytes
			/*        */ 0x0a, 0x24, uuidB, // Account.id (1, LEN): 36 bytes
			/*        */ 0x1a, 0x02, // Account.security_settings (3, LEN): 2 bytes
			/*            */ 0x08, 0x06, // SecurityConfig.type (1, varint) = ZERO (6)
		),
	},
	{
		name: "default set to zeros is still present",
		json: `{"default": {}, "detour": {"to": "x"}}`,
		want: bytesOf(
			0x12, 0x00, // Config.default (2, LEN): an empty DefaultConfig, 0 bytes
			0x1a, 0x03, // Config.detour (3, LEN): 3 bytes
			/**/ 0x0a, 0x01, "x", // DetourConfig.to (1, LEN): 1 byte
		),
	},
}

func TestGoldenVectorsCompile(t *testing.T) {
	for _, v := range goldenVectors {
		t.Run(v.name, func(t *testing.T) {
			cfg, err := Compile([]byte(v.json))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Marshal(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, v.want) {
				t.Fatalf("bytes mismatch\ngot:  % x\nwant: % x", got, v.want)
			}
		})
	}
}

func TestGoldenVectorsDecode(t *testing.T) {
	for _, v := range goldenVectors {
		t.Run(v.name, func(t *testing.T) {
			cfg, err := Unmarshal(v.want)
			if err != nil {
				t.Fatal(err)
			}
			if err := Validate(cfg); err != nil {
				t.Fatal(err)
			}
			want, err := Compile([]byte(v.json))
			if err != nil {
				t.Fatal(err)
			}
			requireEqual(t, cfg, want)
		})
	}
}

// V2Ray v4 wrote User.account as a v2ray.core.common.serial.TypedMessage:
// field 1 "type" holds the bare full name, field 2 "value" the account. It
// has Any's wire shape, so the same bytes decode as an Any whose type_url is
// the bare name.
var v4BareNameVector = bytesOf(
	0x0a, 0x53, // Config.user (1, LEN): 83 bytes
	/**/ 0x12, 0x03, "bob", // User.email (2, LEN): 3 bytes
	/**/ 0x1a, 0x4c, // User.account (3, LEN), a TypedMessage: 76 bytes
	/*    */ 0x0a, 0x1e, "v2ray.core.proxy.vmess.Account", // TypedMessage.type (1, LEN): 30 bytes, no prefix
	/*    */ 0x12, 0x2a, // TypedMessage.value (2, LEN): 42 bytes
	/*        */ 0x0a, 0x24, uuidA, // Account.id (1, LEN): 36 bytes
	/*        */ 0x1a, 0x02, // Account.security_settings (3, LEN): 2 bytes
	/*            */ 0x08, 0x03, // SecurityConfig.type (1, varint) = AES128_GCM (3)
)

func TestDecodeV4BareName(t *testing.T) {
	cfg, err := Unmarshal(v4BareNameVector)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.GetUser()[0].GetAccount().GetTypeUrl(); got != AccountTypeName {
		t.Fatalf("type_url = %q, want the bare name", got)
	}
	if err := Validate(cfg); err != nil {
		t.Fatalf("the bare name must be accepted: %v", err)
	}
	got, err := Decompile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "clients": [
    {
      "id": "` + uuidA + `",
      "level": 0,
      "alterId": 0,
      "email": "bob",
      "security": "aes-128-gcm"
    }
  ],
  "disableInsecureEncryption": false
}
`
	if string(got) != want {
		t.Fatalf("decompiled:\n%s\nwant:\n%s", got, want)
	}

	// Compiling it again writes V2Ray v5's type URL: the Any grows by the
	// 16 bytes of "types.v2fly.org/", and so does the user.
	again, err := Compile(got)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := Marshal(again)
	if err != nil {
		t.Fatal(err)
	}
	wantBin := bytesOf(
		0x0a, 0x63, // Config.user (1, LEN): 99 bytes (83 + 16)
		/**/ 0x12, 0x03, "bob", // User.email (2, LEN): 3 bytes
		/**/ 0x1a, 0x5c, // User.account (3, LEN): 92 bytes (76 + 16)
		/*    */ 0x0a, 0x2e, typeURL, // Any.type_url (1, LEN): 46 bytes
		/*    */ 0x12, 0x2a, // Any.value (2, LEN): 42 bytes, unchanged
		/*        */ 0x0a, 0x24, uuidA,
		/*        */ 0x1a, 0x02, 0x08, 0x03,
	)
	if !bytes.Equal(bin, wantBin) {
		t.Fatalf("recompiled bytes\ngot:  % x\nwant: % x", bin, wantBin)
	}
}

func TestDecompileGolden(t *testing.T) {
	cfg, err := Unmarshal(goldenVectors[2].want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decompile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "clients": [
    {
      "id": "` + uuidA + `",
      "level": 1,
      "alterId": 0,
      "email": "a@b.c",
      "security": "auto"
    }
  ],
  "default": {
    "alterId": 4,
    "level": 1
  },
  "detour": {
    "to": "dyn"
  },
  "disableInsecureEncryption": true
}
`
	if string(got) != want {
		t.Fatalf("decompiled:\n%s\nwant:\n%s", got, want)
	}
}
