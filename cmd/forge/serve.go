package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"forge/cmd/forge/app"
	"forge/services/config"
	"forge/services/logging"
	"forge/services/rpcerr"
)

// cliEnv carries what every subcommand shares.
type cliEnv struct {
	configPath string
	// usedConfig is the file loadConfig read ("" for none).
	usedConfig string
	// overrides are settings given as flags, applied as the environment's
	// FORGE__SECTION__KEY overrides are (after them), so what derives from
	// a setting follows a flag too.
	overrides []string
	stdin     io.Reader
	stdout    io.Writer
	stderr    io.Writer
}

const defaultConfigPath = "custom/conf/app.ini"

// flags makes a subcommand flag set that also accepts --config.
func (e *cliEnv) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&e.configPath, "config", e.configPath, "configuration file (INI)")
	fs.StringVar(&e.configPath, "c", e.configPath, "configuration file (INI), short form")
	return fs
}

// loadConfig reads --config, or ./custom/conf/app.ini when present, or
// nothing (the embedded default); FORGE__SECTION__KEY variables apply on top.
func (e *cliEnv) loadConfig() (*config.Config, error) {
	path := e.configPath
	if path == "" {
		if _, err := os.Stat(defaultConfigPath); err == nil {
			path = defaultConfigPath
		}
	}
	e.usedConfig = path
	return config.Load(path, append(os.Environ(), e.overrides...))
}

func (e *cliEnv) fail(err error) int {
	// The services' errors are gRPC statuses; a person reads their
	// message, not grpc-go's "rpc error: code = ..." rendering.
	fmt.Fprintln(e.stderr, "forge:", rpcerr.Message(err))
	return 1
}

func (e *cliEnv) serve(args []string) int {
	fs := e.flags("serve")
	port := fs.Int("port", -1, "HTTP port ([server] HTTP_PORT); ROOT_URL follows unless set")
	fs.IntVar(port, "p", -1, "HTTP port, short form")
	grpcPort := fs.Int("grpc-port", -1, "gRPC port (the port of [server] GRPC_ADDR)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *port >= 0 {
		e.overrides = append(e.overrides, config.EnvPrefix+"SERVER__HTTP_PORT="+strconv.Itoa(*port))
	}
	cfg, err := e.loadConfig()
	if err != nil {
		return e.fail(err)
	}
	if *grpcPort >= 0 {
		host, _, _ := net.SplitHostPort(cfg.Server.GRPCAddr)
		cfg.Server.GRPCAddr = net.JoinHostPort(host, strconv.Itoa(*grpcPort))
	}
	logs, err := logging.Open(cfg.Log, e.stderr)
	if err != nil {
		return e.fail(err)
	}
	defer logs.Close()
	slog.SetDefault(logs.Main)
	if len(cfg.Unread) > 0 {
		// One warning: a misspelt key never passes silently.
		slog.Warn("configuration keys forge does not read (a typo, or a Gitea setting forge does not have)",
			"keys", strings.Join(cfg.Unread, ", "))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	httpLn, err := net.Listen("tcp", cfg.HTTPListenAddr())
	if err != nil {
		return e.fail(err)
	}
	grpcLn, err := net.Listen("tcp", cfg.Server.GRPCAddr)
	if err != nil {
		return e.fail(err)
	}
	a, err := app.New(ctx, cfg, app.WithAccessLog(logs.Access))
	if err != nil {
		return e.fail(err)
	}
	defer a.Close()
	configFile := e.usedConfig
	if configFile == "" {
		configFile = "(none: the embedded default)"
	}
	slog.Info("forge listening", "http", httpLn.Addr().String(), "grpc", grpcLn.Addr().String(),
		"ssh", a.SSHAddr(), "root_url", cfg.Server.RootURL, "config", configFile, "data", cfg.Server.AppDataPath,
		"repositories", cfg.Repository.Root, "database", cfg.Database.Describe(),
		"log", strings.Join(cfg.Log.Modes, ","), "log_root", cfg.Log.RootPath, "access_log", cfg.Log.EnableAccessLog,
		"metrics", cfg.Metrics.Enabled)
	if err := a.Serve(ctx, httpLn, grpcLn); err != nil && !errors.Is(err, context.Canceled) {
		return e.fail(err)
	}
	return 0
}

func (e *cliEnv) migrate(args []string) int {
	fs := e.flags("migrate")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	cfg, err := e.loadConfig()
	if err != nil {
		return e.fail(err)
	}
	st, err := app.OpenStore(context.Background(), cfg)
	if err != nil {
		return e.fail(err)
	}
	st.Close()
	fmt.Fprintln(e.stdout, "database is up to date")
	return 0
}
