package app

import (
	"github.com/fullstorydev/grpchan/inprocgrpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// shallowCloner hands messages across the in-process channel without
// copying what they hold. The channel's default deep-copies the request
// into the server's message and the response into the gateway's (a full
// proto.Merge: for a page of 50 issues, every issue, label and user
// again), so that neither side sees the other's later writes.
//
// Copy (what a unary call uses, both ways) sets the top-level fields of
// out to those of in, sharing nested messages, lists, maps and bytes.
// That is safe here because neither side keeps or mutates a message the
// other holds:
//   - the gateway builds a fresh request per call (the generated handlers
//     and raw/upload code), gives it to Invoke and never reads or writes
//     it again; the service may mutate it while it runs, and nothing else
//     looks at it;
//   - a service builds a fresh response per call and keeps no reference
//     to it (no service caches messages); the gateway only reads it
//     (marshaling, paging headers, restBody's choice of member).
//
// Clone (what a stream uses for each message it sends, while the sender
// may reuse its message for the next one) stays a deep copy.
type shallowCloner struct{ inprocgrpc.ProtoCloner }

func (c shallowCloner) Copy(out, in any) error {
	dst, ok := out.(proto.Message)
	src, ok2 := in.(proto.Message)
	if !ok || !ok2 {
		return c.ProtoCloner.Copy(out, in)
	}
	d, s := dst.ProtoReflect(), src.ProtoReflect()
	if d.Descriptor() != s.Descriptor() {
		return c.ProtoCloner.Copy(out, in)
	}
	proto.Reset(dst)
	s.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		d.Set(fd, v)
		return true
	})
	if u := s.GetUnknown(); len(u) > 0 {
		d.SetUnknown(u)
	}
	return nil
}
