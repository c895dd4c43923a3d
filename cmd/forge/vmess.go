package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"forge/gen/v2ray/core/common/protocol"
	"forge/services/vmess"
)

const vmessUsage = `usage:
  forge vmess compile [-tag TAG] [-o FILE] [CONFIG.json|-]
      V2Ray JSON (an inbound's settings object, or a config file) to the
      binary Config; stdout unless -o. Nothing is written on error.
  forge vmess decompile [FILE|-]
      binary Config to indented JSON settings on stdout.
  forge vmess check [-tag TAG] [FILE|-]
      read either form, print one line per user and every problem found;
      exit status 1 when there are problems.

Without a file, or with -, the input is stdin. -tag picks a VMess inbound by
tag in a config file with several.
`

// maxVMessInput bounds what the vmess commands read; configs are small.
const maxVMessInput = 16 << 20

// vmessCommand runs `forge vmess ...`. Exit status: 0 done, 1 bad input or
// problems found, 2 bad usage.
func vmessCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, vmessUsage)
		return 2
	}
	switch args[0] {
	case "compile":
		return vmessCompile(args[1:], stdin, stdout, stderr)
	case "decompile":
		return vmessDecompile(args[1:], stdin, stdout, stderr)
	case "check":
		return vmessCheck(args[1:], stdin, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, vmessUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "forge vmess: unknown command %q\n\n%s", args[0], vmessUsage)
		return 2
	}
}

func vmessCompile(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := vmessFlags("compile", stderr)
	tag := fs.String("tag", "", "compile the VMess inbound with this tag (config files)")
	output := fs.String("o", "", "write the binary Config to this file instead of stdout")
	input, code := vmessParse(fs, args, stderr)
	if code >= 0 {
		return code
	}
	data, name, err := vmessRead(input, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "forge vmess compile: %v\n", err)
		return 1
	}
	cfg, err := vmess.CompileTag(data, *tag)
	if err != nil {
		vmessReportError(stderr, "compile", name, err)
		fmt.Fprintln(stderr, "forge vmess compile: nothing written")
		return 1
	}
	out, err := vmess.Marshal(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "forge vmess compile: %v\n", err)
		return 1
	}
	if *output == "" {
		_, err = stdout.Write(out)
	} else {
		err = writeFileAtomic(*output, out)
	}
	if err != nil {
		fmt.Fprintf(stderr, "forge vmess compile: %v\n", err)
		return 1
	}
	return 0
}

func vmessDecompile(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := vmessFlags("decompile", stderr)
	input, code := vmessParse(fs, args, stderr)
	if code >= 0 {
		return code
	}
	data, name, err := vmessRead(input, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "forge vmess decompile: %v\n", err)
		return 1
	}
	if vmess.DetectFormat(data) == vmess.FormatJSON {
		fmt.Fprintf(stderr, "forge vmess decompile: %s: this is JSON; decompile reads the binary Config (try forge vmess check or compile)\n", name)
		return 1
	}
	cfg, err := vmess.Unmarshal(data)
	if err != nil {
		fmt.Fprintf(stderr, "forge vmess decompile: %s: %v\n", name, err)
		return 1
	}
	out, err := vmess.Decompile(cfg)
	if err != nil {
		vmessReportError(stderr, "decompile", name, err)
		return 1
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "forge vmess decompile: %v\n", err)
		return 1
	}
	return 0
}

func vmessCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := vmessFlags("check", stderr)
	tag := fs.String("tag", "", "check the VMess inbound with this tag (config files)")
	input, code := vmessParse(fs, args, stderr)
	if code >= 0 {
		return code
	}
	data, name, err := vmessRead(input, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "forge vmess check: %v\n", err)
		return 1
	}
	report := vmess.Check(data, *tag)
	for i, user := range report.Config.GetUser() {
		fmt.Fprintf(stdout, "clients[%d]: %s\n", i, vmessUserSummary(user))
	}
	for _, p := range report.Problems {
		fmt.Fprintf(stdout, "%s: %s\n", name, p)
	}
	if n := len(report.Problems); n > 0 {
		fmt.Fprintf(stdout, "%s: %s, %d problem(s)\n", name, report.Format, n)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %s, %d user(s), ok\n", name, report.Format, len(report.Config.GetUser()))
	return 0
}

// vmessUserSummary is one line about a user: email, level, alter id and
// security, as far as they can be read.
func vmessUserSummary(user *protocol.User) string {
	email := user.GetEmail()
	if email == "" {
		email = "-"
	}
	line := fmt.Sprintf("email=%s level=%d", email, user.GetLevel())
	account, err := vmess.UnpackAccount(user.GetAccount())
	if err != nil {
		return line + " (no readable VMess account)"
	}
	security, ok := vmess.SecurityName(account.GetSecuritySettings().GetType())
	if !ok {
		security = account.GetSecuritySettings().GetType().String()
	}
	return fmt.Sprintf("%s alterId=%d security=%s", line, account.GetAlterId(), security)
}

// vmessReportError prints Problems one per line, prefixed with the input's
// name, and any other error as it is.
func vmessReportError(stderr io.Writer, command, name string, err error) {
	var problems vmess.Problems
	if !errors.As(err, &problems) {
		fmt.Fprintf(stderr, "forge vmess %s: %s: %v\n", command, name, err)
		return
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "%s: %s\n", name, p)
	}
}

func vmessFlags(command string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("forge vmess "+command, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, vmessUsage) }
	return fs
}

// vmessParse parses flags given before or after the one optional input
// argument. It returns the input ("-" for stdin) and -1, or an exit status.
func vmessParse(fs *flag.FlagSet, args []string, stderr io.Writer) (string, int) {
	var inputs []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return "", 0
			}
			return "", 2
		}
		if fs.NArg() == 0 {
			break
		}
		inputs = append(inputs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch len(inputs) {
	case 0:
		return "-", -1
	case 1:
		return inputs[0], -1
	}
	fmt.Fprintf(stderr, "%s: want at most one input file, got %d\n", fs.Name(), len(inputs))
	return "", 2
}

// vmessRead reads the input file, or stdin for "-". It returns the name to
// use in messages.
func vmessRead(input string, stdin io.Reader) ([]byte, string, error) {
	name, r := input, stdin
	if input == "-" {
		name = "<stdin>"
	} else {
		f, err := os.Open(input)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxVMessInput+1))
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxVMessInput {
		return nil, "", fmt.Errorf("%s: larger than %d MiB", name, maxVMessInput>>20)
	}
	return data, name, nil
}

// writeFileAtomic writes data to a temporary file next to path and renames
// it into place, so path is either untouched or complete. The file is
// readable by its owner only: it holds the users' ids.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
