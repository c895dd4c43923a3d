// Command forge is the forge server and its administration tools.
//
//	forge [--config FILE] [--work-path DIR] serve [--port N] [--grpc-port N]
//	forge version
//	forge [--config FILE] migrate
//	forge [--config FILE] dump [--file F|-]
//	forge [--config FILE] restore --file F [--database-...]
//	forge [--config FILE] doctor [--fix]
//	forge [--config FILE] admin user create|list|delete|change-password|totp|generate-access-token|must-change-password ...
//	forge [--config FILE] admin auth add-ldap|update-ldap|list|delete ...
//	forge generate secret SECRET_KEY|INTERNAL_TOKEN|JWT_SECRET|LFS_JWT_SECRET
//	forge vmess compile|decompile|check ...
//	forge bench --url URL ...
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"forge/cmd/forge/bench"
	"forge/services/misc"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: forge [--config FILE] [--work-path DIR] COMMAND
       forge help [COMMAND] | forge --version

commands:
  serve [--port N] [--grpc-port N]
                             run the server (REST, git over HTTP, gRPC); --port
                             sets [server] HTTP_PORT (ROOT_URL and, unless
                             GRPC_ADDR is set, the gRPC port HTTP_PORT+1 follow)
  version                    print forge's version and the Gitea API level it serves
  migrate                    apply pending database migrations
  dump [--file F|-]          write a backup archive (database as portable rows,
                             repositories, attachments, secret key, config); safe
                             while the server runs (docs/backup.md)
  restore --file F [--database-type T --database-host H ...]
                             restore a dump onto an empty data directory and an
                             empty database (SQLite or PostgreSQL, either way)
  doctor [--fix]             check records against git refs, attachments, repository
                             directories, hooks and config; --fix repairs what is safe
  admin user create ...      create a user (--username --password --email [--admin]
                             [--must-change-password=false] [--access-token])
  admin user list            list users
  admin user delete --username U
  admin user change-password --username U --password P
  admin user totp enable|disable --username U
  admin user generate-access-token --username U [--token-name N] [--scopes S] [--raw]
                             create an access token (default name gitea-admin,
                             scopes all) and print it
  admin user must-change-password [--all [--exclude U]] [--unset] [USER...]
                             require (or with --unset lift) a password change
  admin auth add-ldap ...    add an LDAP source (--name --host --port --user-search-base
                             --user-filter --email-attribute [--bind-dn --bind-password-file]
                             [--security-protocol unencrypted|ldaps|starttls] ...)
  admin auth update-ldap --id N ...  change the flags given of source N
  admin auth list            list login sources (ID, Name, Type, Enabled)
  admin auth delete --id N   delete a source no user belongs to
  generate secret SECRET_KEY|INTERNAL_TOKEN|JWT_SECRET|LFS_JWT_SECRET
                             print a fresh random value for that app.ini key
  vmess compile|decompile|check ...   VMess inbound configuration tools
  bench --url URL ...        seed a dataset and measure a Gitea-API server against
                             a bare-HTTP ceiling (forge bench --help)

The configuration file defaults to custom/conf/app.ini under the work path
(--work-path, -w; default the current directory) when it exists; relative
paths in it are relative to the work path. COMMAND --help lists a command's
flags.
`

// versionLine is what --version and version print.
func versionLine() string {
	return fmt.Sprintf("forge version %s (Gitea API %s)\n", misc.Version, misc.GiteaAPIVersion)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	global := flag.NewFlagSet("forge", flag.ContinueOnError)
	global.SetOutput(stderr)
	global.Usage = func() {} // usage is printed below, on stdout for --help
	configPath := global.String("config", "", "configuration file (INI)")
	global.StringVar(configPath, "c", "", "configuration file (INI), short form")
	workPath := global.String("work-path", "", "work path: where custom/ and relative paths are")
	global.StringVar(workPath, "w", "", "work path, short form")
	showVersion := global.Bool("version", false, "print the version")
	global.BoolVar(showVersion, "v", false, "print the version, short form")
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		fmt.Fprint(stderr, usage)
		return 2
	}
	if *showVersion {
		fmt.Fprint(stdout, versionLine())
		return 0
	}
	args = global.Args()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if *workPath != "" {
		// As gitea -w: everything relative (the default config file, the
		// data directory) is found under the work path.
		if err := os.Chdir(*workPath); err != nil {
			fmt.Fprintf(stderr, "forge: work path: %v (give an existing directory to --work-path)\n", err)
			return 1
		}
	}
	env := &cliEnv{configPath: *configPath, stdin: stdin, stdout: stdout, stderr: stderr}
	switch args[0] {
	case "serve", "web":
		return env.serve(args[1:])
	case "migrate":
		return env.migrate(args[1:])
	case "dump":
		return env.dump(args[1:])
	case "restore":
		return env.restore(args[1:])
	case "doctor":
		return env.doctor(args[1:])
	case "admin":
		return env.admin(args[1:])
	case "vmess":
		return vmessCommand(args[1:], stdin, stdout, stderr)
	case "bench":
		return bench.Run(args[1:], stdout, stderr)
	case "generate":
		return generateCommand(args[1:], stdout, stderr)
	case "version":
		fmt.Fprint(stdout, versionLine())
		return 0
	case "help":
		if len(args) > 1 && args[1] != "help" {
			// help CMD [SUB...] is CMD [SUB...] --help.
			return run(append(append([]string{}, args[1:]...), "--help"), stdin, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "forge: unknown command %q (forge help lists the commands)\n", args[0])
		return 2
	}
}

// parseFlags parses a command's flags: --help prints them and succeeds
// (exit 0), a bad flag is exit 2.
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		return 0, false
	default:
		return 2, false
	}
}
