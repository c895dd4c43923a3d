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
	"syscall"

	"forge/cmd/forge/app"
	"forge/services/config"
	"forge/services/rpcerr"
)

// cliEnv carries what every subcommand shares.
type cliEnv struct {
	configPath string
	stdin      io.Reader
	stdout     io.Writer
	stderr     io.Writer
}

const defaultConfigPath = "custom/conf/app.ini"

// flags makes a subcommand flag set that also accepts --config.
func (e *cliEnv) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&e.configPath, "config", e.configPath, "configuration file (INI)")
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
	return config.Load(path, os.Environ())
}

func (e *cliEnv) fail(err error) int {
	// The services' errors are gRPC statuses; a person reads their
	// message, not grpc-go's "rpc error: code = ..." rendering.
	fmt.Fprintln(e.stderr, "forge:", rpcerr.Message(err))
	return 1
}

func (e *cliEnv) serve(args []string) int {
	fs := e.flags("serve")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := e.loadConfig()
	if err != nil {
		return e.fail(err)
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
	a, err := app.New(ctx, cfg)
	if err != nil {
		return e.fail(err)
	}
	defer a.Close()
	slog.Info("forge listening", "http", httpLn.Addr().String(), "grpc", grpcLn.Addr().String(),
		"ssh", a.SSHAddr(), "root_url", cfg.Server.RootURL, "database", cfg.Database.Type)
	if err := a.Serve(ctx, httpLn, grpcLn); err != nil && !errors.Is(err, context.Canceled) {
		return e.fail(err)
	}
	return 0
}

func (e *cliEnv) migrate(args []string) int {
	fs := e.flags("migrate")
	if err := fs.Parse(args); err != nil {
		return 2
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
