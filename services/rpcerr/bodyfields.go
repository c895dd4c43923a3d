package rpcerr

import (
	"encoding/json"
	"log/slog"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
)

// An error's Fields (errs.Error.Fields, members Gitea adds to its error
// body) travel as one google.protobuf.Struct status detail: gRPC clients
// read it like any detail, and the REST gateway writes its members beside
// the message (BodyFields), knowing nothing of any method.

// withBodyFields is err, a status error, with fields as a Struct detail.
// Fields that do not encode are logged and left out; the status stands.
func withBodyFields(err error, fields map[string]any) error {
	st := status.Convert(err)
	b, jerr := json.Marshal(fields)
	var s structpb.Struct
	if jerr == nil {
		jerr = protojson.Unmarshal(b, &s)
	}
	if jerr != nil {
		slog.Error("error body fields do not encode", "err", jerr)
		return err
	}
	detailed, derr := st.WithDetails(&s)
	if derr != nil {
		return err
	}
	return detailed.Err()
}

// BodyFields is the members err asks to add to Gitea's error body, or nil:
// a status's Struct detail; any other error is first translated as
// Status translates it.
func BodyFields(err error) map[string]any {
	for _, d := range statusOf(err).Details() {
		if s, ok := d.(*structpb.Struct); ok {
			return s.AsMap()
		}
	}
	return nil
}
