package giteajson

import (
	"testing"

	_ "forge/gen/forge/options/v1" // resolves the option extensions in kindsSchema

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	_ "google.golang.org/protobuf/types/known/anypb"
	_ "google.golang.org/protobuf/types/known/durationpb"
	_ "google.golang.org/protobuf/types/known/emptypb"
	_ "google.golang.org/protobuf/types/known/structpb"
	_ "google.golang.org/protobuf/types/known/wrapperspb"
)

// kindsSchema is a test-only .proto, as a FileDescriptorProto, covering what
// forge's own messages do not yet use: every scalar kind, enums, maps,
// recursion, oneofs, explicit json_name, well-known types. Its messages are
// dynamicpb messages, so the encoder's generic (non-generated) paths run too.
const kindsSchema = `
name: "giteajson_test.proto"
package: "giteajson.test"
syntax: "proto3"
dependency: "google/protobuf/timestamp.proto"
dependency: "google/protobuf/duration.proto"
dependency: "google/protobuf/wrappers.proto"
dependency: "google/protobuf/struct.proto"
dependency: "google/protobuf/empty.proto"
dependency: "google/protobuf/any.proto"
dependency: "forge/options/v1/json.proto"
enum_type {
  name: "Color"
  value { name: "COLOR_UNSPECIFIED" number: 0 }
  value { name: "COLOR_RED" number: 1 }
}
message_type {
  name: "Kinds"
  field { name: "i32" number: 1 label: LABEL_OPTIONAL type: TYPE_INT32 }
  field { name: "i64" number: 2 label: LABEL_OPTIONAL type: TYPE_INT64 }
  field { name: "u32" number: 3 label: LABEL_OPTIONAL type: TYPE_UINT32 }
  field { name: "u64" number: 4 label: LABEL_OPTIONAL type: TYPE_UINT64 }
  field { name: "s32" number: 5 label: LABEL_OPTIONAL type: TYPE_SINT32 }
  field { name: "s64" number: 6 label: LABEL_OPTIONAL type: TYPE_SINT64 }
  field { name: "f32" number: 7 label: LABEL_OPTIONAL type: TYPE_FIXED32 }
  field { name: "f64" number: 8 label: LABEL_OPTIONAL type: TYPE_FIXED64 }
  field { name: "sf32" number: 9 label: LABEL_OPTIONAL type: TYPE_SFIXED32 }
  field { name: "sf64" number: 10 label: LABEL_OPTIONAL type: TYPE_SFIXED64 }
  field { name: "flt" number: 11 label: LABEL_OPTIONAL type: TYPE_FLOAT }
  field { name: "dbl" number: 12 label: LABEL_OPTIONAL type: TYPE_DOUBLE }
  field { name: "bl" number: 13 label: LABEL_OPTIONAL type: TYPE_BOOL }
  field { name: "str" number: 14 label: LABEL_OPTIONAL type: TYPE_STRING }
  field { name: "byt" number: 15 label: LABEL_OPTIONAL type: TYPE_BYTES }
  field { name: "color" number: 16 label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".giteajson.test.Color" }
  field { name: "do" number: 17 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "Do" }
  field { name: "merge_title" number: 18 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "mergeTitle" }
  field { name: "colors" number: 19 label: LABEL_REPEATED type: TYPE_ENUM type_name: ".giteajson.test.Color" }
  field { name: "labels" number: 20 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".giteajson.test.Kinds.LabelsEntry" }
  field {
    name: "by_id" number: 21 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".giteajson.test.Kinds.ByIdEntry"
    options { [forge.options.v1.null_if_empty]: true }
  }
  field { name: "child" number: 22 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".giteajson.test.Kinds" }
  field { name: "children" number: 23 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".giteajson.test.Kinds" }
  field { name: "ts" number: 24 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Timestamp" }
  field { name: "dur" number: 25 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Duration" }
  field { name: "i64w" number: 26 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Int64Value" }
  field { name: "strw" number: 27 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.StringValue" }
  field { name: "blw" number: 28 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.BoolValue" }
  field { name: "st" number: 29 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Struct" }
  field { name: "val" number: 30 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Value" }
  field { name: "lst" number: 31 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.ListValue" }
  field { name: "empty" number: 32 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Empty" }
  field { name: "opt_i64" number: 33 label: LABEL_OPTIONAL type: TYPE_INT64 oneof_index: 1 proto3_optional: true }
  field { name: "pick_str" number: 34 label: LABEL_OPTIONAL type: TYPE_STRING oneof_index: 0 }
  field { name: "pick_msg" number: 35 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".giteajson.test.Kinds" oneof_index: 0 }
  field {
    name: "hidden" number: 36 label: LABEL_OPTIONAL type: TYPE_STRING
    options { [forge.options.v1.rest_hidden]: true }
  }
  field { name: "bytes_list" number: 37 label: LABEL_REPEATED type: TYPE_BYTES }
  field { name: "dw" number: 38 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.DoubleValue" }
  nested_type {
    name: "LabelsEntry"
    field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING }
    field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING }
    options { map_entry: true }
  }
  nested_type {
    name: "ByIdEntry"
    field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_INT64 }
    field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".giteajson.test.Color" }
    options { map_entry: true }
  }
  oneof_decl { name: "pick" }
  oneof_decl { name: "_opt_i64" }
}
message_type {
  name: "WithAny"
  field { name: "any" number: 1 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Any" }
}
`

var kindsFile = func() protoreflect.FileDescriptor {
	var fdp descriptorpb.FileDescriptorProto
	if err := prototext.Unmarshal([]byte(kindsSchema), &fdp); err != nil {
		panic(err)
	}
	fd, err := protodesc.NewFile(&fdp, protoregistry.GlobalFiles)
	if err != nil {
		panic(err)
	}
	return fd
}()

// newTestMessage returns a dynamic message of the named test type, filled
// from text format.
func newTestMessage(t testing.TB, name protoreflect.Name, text string) proto.Message {
	t.Helper()
	md := kindsFile.Messages().ByName(name)
	if md == nil {
		t.Fatalf("no message %s", name)
	}
	m := dynamicpb.NewMessage(md)
	if err := prototext.Unmarshal([]byte(text), m); err != nil {
		t.Fatalf("prototext: %v", err)
	}
	return m
}
