// Package bench is `forge bench`: it seeds a dataset through the API of any
// server that speaks Gitea's API (forge, Gitea, Forgejo), measures a fixed
// set of reads and one write at several concurrencies with vegeta, next to a
// bare-HTTP ceiling that serves the same bytes, and reports a table, a JSON
// file and a plot.
package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"
)

// TokenEnv names the environment variable that carries the site
// administrator's token. Secrets never travel on a command line, where
// every local user can read them in the process list.
const TokenEnv = "FORGE_BENCH_TOKEN"

// Usage is the help text of `forge bench`.
const Usage = `usage: forge bench --url URL [flags]

Seeds a dataset through the API (idempotently), then measures each endpoint
at each concurrency against the target and against a built-in bare-HTTP
ceiling that serves the same bytes. Progress goes to stderr, the table to
stdout; --out receives bench.png, bench.svg and bench.json.

The site administrator's token is read from $` + TokenEnv + ` or --token-file.

flags:
`

// options are the parsed flags.
type options struct {
	url         string
	name        string
	tokenFile   string
	user        string
	concurrency []int
	duration    time.Duration
	sizes       sizes
	pid         int
	out         string
	endpoints   []string
	noCeiling   bool
}

// sizes is the dataset's shape.
type sizes struct {
	Labels   int `json:"labels"`
	Issues   int `json:"issues"`
	Comments int `json:"comments"`
	Commits  int `json:"commits"`
}

// Run is `forge bench ARGS`; it returns the process exit code.
func Run(args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "forge bench: %v\n", err)
		return 2
	}
	token, err := adminToken(o.tokenFile)
	if err != nil {
		fmt.Fprintf(stderr, "forge bench: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := bench(ctx, o, token, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "forge bench: %v\n", err)
		return 1
	}
	return 0
}

func parse(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("forge bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, Usage); fs.PrintDefaults() }
	o := &options{}
	fs.StringVar(&o.url, "url", "", "base URL of the server under test, e.g. http://127.0.0.1:3000")
	fs.StringVar(&o.name, "name", "", "label of the target in the table and plot (default: the URL's host)")
	fs.StringVar(&o.tokenFile, "token-file", "", "file holding the site administrator's token (default: $"+TokenEnv+")")
	fs.StringVar(&o.user, "user", "bench", "name of the seeded user, who owns the dataset and makes the measured calls")
	conc := fs.String("concurrency", "1,8,32", "comma-separated numbers of concurrent clients")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "duration of each measured point")
	fs.IntVar(&o.sizes.Labels, "labels", 50, "labels in the seeded repository")
	fs.IntVar(&o.sizes.Issues, "issues", 200, "issues in the seeded repository")
	fs.IntVar(&o.sizes.Comments, "comments", 3, "comments on each seeded issue")
	fs.IntVar(&o.sizes.Commits, "commits", 20, "commits pushed to the seeded repository")
	fs.IntVar(&o.pid, "pid", 0, "process id of the server, to report its resident memory (Linux /proc)")
	fs.StringVar(&o.out, "out", "", "directory for bench.png, bench.svg and bench.json")
	eps := fs.String("endpoints", "", "comma-separated subset of endpoints (default: all): "+strings.Join(endpointNames(), ","))
	fs.BoolVar(&o.noCeiling, "no-ceiling", false, "skip the bare-HTTP ceiling (no ratio column)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	u, err := url.Parse(o.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--url must be an http(s) URL, got %q", o.url)
	}
	if u.User != nil {
		return nil, errors.New("--url must not carry credentials")
	}
	o.url = strings.TrimSuffix(u.String(), "/")
	if o.name == "" {
		o.name = u.Host
	}
	if o.name == "ceiling" {
		return nil, errors.New(`--name "ceiling" is the bare-HTTP reference's; choose another`)
	}
	for _, f := range strings.Split(*conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--concurrency: %q is not a positive number", f)
		}
		o.concurrency = append(o.concurrency, n)
	}
	if o.duration <= 0 {
		return nil, errors.New("--duration must be positive")
	}
	s := o.sizes
	if s.Labels < 0 || s.Comments < 0 || s.Issues < 1 || s.Commits < 1 {
		return nil, errors.New("sizes must not be negative, and --issues and --commits at least 1 (one issue and the README are measured)")
	}
	if *eps != "" {
		known := map[string]bool{}
		for _, n := range endpointNames() {
			known[n] = true
		}
		for _, n := range strings.Split(*eps, ",") {
			n = strings.TrimSpace(n)
			if !known[n] {
				return nil, fmt.Errorf("--endpoints: unknown endpoint %q (known: %s)", n, strings.Join(endpointNames(), ","))
			}
			o.endpoints = append(o.endpoints, n)
		}
	}
	return o, nil
}

// adminToken reads the administrator's token from the file, or else from
// the environment.
func adminToken(file string) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
		if t := strings.TrimSpace(string(b)); t != "" {
			return t, nil
		}
		return "", fmt.Errorf("--token-file %s is empty", file)
	}
	if t := strings.TrimSpace(os.Getenv(TokenEnv)); t != "" {
		return t, nil
	}
	return "", fmt.Errorf("no administrator token: set $%s or --token-file", TokenEnv)
}

// bench seeds, measures and reports.
func bench(ctx context.Context, o *options, adminTok string, stdout, stderr io.Writer) error {
	admin := newClient(o.url, "token "+adminTok)
	ds, err := seed(ctx, admin, o.user, o.sizes, stderr)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	eps := selectEndpoints(endpoints(ds), o.endpoints)
	res, err := measure(ctx, o, ds, eps, stderr)
	if err != nil {
		return err
	}
	writeTable(stdout, res)
	if o.out != "" {
		if err := writeFiles(o.out, res); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "bench: wrote %s/bench.png, bench.svg, bench.json\n", o.out)
	}
	return nil
}
