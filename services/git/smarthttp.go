package git

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Service is a smart HTTP service, as named in the info/refs query and the
// POST path.
type Service string

const (
	ServiceUploadPack  Service = "git-upload-pack"  // fetch and clone
	ServiceReceivePack Service = "git-receive-pack" // push
)

// ParseService accepts "git-upload-pack" and "git-receive-pack";
// anything else is ErrInvalid (the HTTP layer then serves 403/404).
func ParseService(name string) (Service, error) {
	switch Service(name) {
	case ServiceUploadPack, ServiceReceivePack:
		return Service(name), nil
	}
	return "", invalidf("git service %q", name)
}

// AdvertisementContentType is the Content-Type of the info/refs response.
func (s Service) AdvertisementContentType() string {
	return "application/x-" + string(s) + "-advertisement"
}

// RequestContentType is the Content-Type clients POST with.
func (s Service) RequestContentType() string { return "application/x-" + string(s) + "-request" }

// ResultContentType is the Content-Type of the POST response.
func (s Service) ResultContentType() string { return "application/x-" + string(s) + "-result" }

// subcommand is the git command implementing the service.
func (s Service) subcommand() string { return strings.TrimPrefix(string(s), "git-") }

// uploadPackConfig enables partial clone filters; nothing else differs from
// git's defaults.
var uploadPackConfig = []string{"uploadpack.allowFilter=true"}

// DecodeRequestBody wraps a smart HTTP request body according to its
// Content-Encoding: git clients gzip larger upload-pack requests. "" and
// "identity" pass through; other encodings are ErrInvalid.
func DecodeRequestBody(body io.Reader, contentEncoding string) (io.ReadCloser, error) {
	switch strings.ToLower(strings.TrimSpace(contentEncoding)) {
	case "", "identity":
		return io.NopCloser(body), nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, invalidf("gzip request body: %v", err)
		}
		return zr, nil
	}
	return nil, invalidf("content encoding %q", contentEncoding)
}

// protocolEnv passes the client's Git-Protocol header (e.g. "version=2")
// to git. Values with characters outside the protocol's syntax are ignored.
func protocolEnv(gitProtocol string) []string {
	if gitProtocol == "" || len(gitProtocol) > 256 {
		return nil
	}
	for i := 0; i < len(gitProtocol); i++ {
		c := gitProtocol[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("=:._-", c) >= 0) {
			return nil
		}
	}
	return []string{"GIT_PROTOCOL=" + gitProtocol}
}

// wantsV2 reports whether the Git-Protocol header asks for protocol v2.
func wantsV2(gitProtocol string) bool {
	for _, kv := range strings.Split(gitProtocol, ":") {
		if kv == "version=2" {
			return true
		}
	}
	return false
}

// pktLine encodes one pkt-line.
func pktLine(payload string) string { return fmt.Sprintf("%04x%s", len(payload)+4, payload) }

// AdvertiseRefs writes the body of GET info/refs?service=<service>: the
// "# service=..." pkt-line and a flush (omitted for protocol v2, like git
// http-backend) followed by `git <svc> --stateless-rpc --advertise-refs`.
// Nothing is written before git produces output, so on an early error the
// HTTP layer can still send an error status. ErrNotFound if path holds no
// repository.
func (s *Store) AdvertiseRefs(ctx context.Context, path string, service Service, gitProtocol string, w io.Writer) error {
	if _, err := ParseService(string(service)); err != nil {
		return err
	}
	if err := s.checkRepo(path); err != nil {
		return err
	}
	header := ""
	if !(service == ServiceUploadPack && wantsV2(gitProtocol)) {
		header = pktLine("# service="+string(service)+"\n") + "0000"
	}
	args := []string{service.subcommand(), "--stateless-rpc", "--advertise-refs"}
	var config []string
	if service == ServiceUploadPack {
		args = append(args, "--strict")
		config = uploadPackConfig
	}
	// git writes the advertisement one pkt-line at a time; passed on
	// write by write, each line of it would be a flushed HTTP chunk, one
	// send per ref. Sent in advertiseChunk pieces it still streams.
	out := bufio.NewWriterSize(&prefixWriter{w: withFlush(w), prefix: header}, advertiseChunk)
	err := s.run(ctx, invocation{
		config: config,
		args:   append(args, absPath(path)),
		env:    protocolEnv(gitProtocol),
		stdout: out,
	})
	return errors.Join(err, out.Flush())
}

// advertiseChunk is how much of a ref advertisement is sent at once.
const advertiseChunk = 64 << 10

// UploadPack serves POST git-upload-pack: body (already decoded, see
// DecodeRequestBody) is fed to `git upload-pack --stateless-rpc` and the
// pack is streamed to w, flushing after every write if w has Flush().
func (s *Store) UploadPack(ctx context.Context, path string, body io.Reader, w io.Writer, gitProtocol string) error {
	if err := s.checkRepo(path); err != nil {
		return err
	}
	return s.run(ctx, invocation{
		config: uploadPackConfig,
		args:   []string{"upload-pack", "--stateless-rpc", "--strict", absPath(path)},
		env:    protocolEnv(gitProtocol),
		stdin:  body,
		stdout: withFlush(w),
	})
}

// ReceivePack serves POST git-receive-pack and returns the refs the push
// actually updated (rejected updates are not listed). A forge-owned
// post-receive hook, enabled with -c core.hooksPath, copies git's own list
// of updated refs to a per-call file, so the cost is proportional to the
// number of pushed refs, not to the number of refs in the repository.
// Hooks inside the repository never run. If git fails after updating some
// refs, those updates are returned together with the error.
func (s *Store) ReceivePack(ctx context.Context, path string, body io.Reader, w io.Writer, gitProtocol string) ([]RefUpdate, error) {
	return s.receivePack(ctx, path, body, w, gitProtocol, nil, false)
}

// UploadPackDuplex serves a fetch over a full-duplex connection (SSH):
// `git upload-pack` advertises, negotiates and sends the pack over in and
// out itself.
func (s *Store) UploadPackDuplex(ctx context.Context, path string, in io.Reader, out io.Writer, gitProtocol string) error {
	if err := s.checkRepo(path); err != nil {
		return err
	}
	return s.run(ctx, invocation{
		config: uploadPackConfig,
		args:   []string{"upload-pack", "--strict", absPath(path)},
		env:    protocolEnv(gitProtocol),
		stdin:  in,
		stdout: out,
	})
}

// receivePack runs receive-pack: stateless (HTTP: body holds the
// commands and the pack, the advertisement was a request of its own) or,
// with duplex, the whole conversation over body and w (SSH).
func (s *Store) receivePack(ctx context.Context, path string, body io.Reader, w io.Writer, gitProtocol string, env []string, duplex bool) ([]RefUpdate, error) {
	if err := s.checkRepo(path); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(s.tmpDir, "push-*.log")
	if err != nil {
		return nil, err
	}
	logFile := f.Name()
	f.Close()
	defer os.Remove(logFile)
	err = s.run(ctx, invocation{
		config: receivePackConfig(s.hooksDir),
		args:   receivePackArgs(path, duplex),
		env:    append(append(protocolEnv(gitProtocol), pushLogEnv+"="+logFile), env...),
		stdin:  body,
		stdout: withFlush(w),
	})
	updates, rerr := readPushLog(logFile)
	return updates, errors.Join(err, rerr)
}

func receivePackArgs(path string, duplex bool) []string {
	if duplex {
		return []string{"receive-pack", absPath(path)}
	}
	return []string{"receive-pack", "--stateless-rpc", absPath(path)}
}

// receivePackConfig: forge's hooks only; no background gc (see
// Housekeep); and no alternate-refs enumeration. While a push is
// quarantined, the repository's own object directory is its only
// alternate, so git's connectivity check would list every ref a second
// time (on top of --all) — O(refs) work that buys nothing here.
func receivePackConfig(hooksDir string) []string {
	return []string{
		"core.hooksPath=" + hooksDir,
		"receive.autogc=false",
		"core.alternateRefsCommand=true",
	}
}

// readPushLog parses the post-receive input: "<old> <new> <ref>" lines.
func readPushLog(name string) ([]RefUpdate, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var updates []RefUpdate
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			continue
		}
		updates = append(updates, RefUpdate{OldSHA: fields[0], NewSHA: fields[1], Name: fields[2]})
	}
	return updates, sc.Err()
}

// prefixWriter writes prefix before the first byte of output.
type prefixWriter struct {
	w       io.Writer
	prefix  string
	started bool
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	if !p.started {
		p.started = true
		if p.prefix != "" {
			if _, err := io.WriteString(p.w, p.prefix); err != nil {
				return 0, err
			}
		}
	}
	return p.w.Write(b)
}

// withFlush makes writes to w visible at once when w can Flush (an
// http.ResponseWriter), so progress and packs stream to the client.
func withFlush(w io.Writer) io.Writer {
	if f, ok := w.(interface{ Flush() }); ok {
		return flushWriter{w: w, f: f}
	}
	return w
}

type flushWriter struct {
	w io.Writer
	f interface{ Flush() }
}

func (fw flushWriter) Write(b []byte) (int, error) {
	n, err := fw.w.Write(b)
	if n > 0 {
		fw.f.Flush()
	}
	return n, err
}
