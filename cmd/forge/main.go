// Command forge is the forge server and its administration tools.
//
//	forge [--config FILE] serve
//	forge [--config FILE] migrate
//	forge [--config FILE] admin user create|list|delete|change-password|totp ...
//	forge [--config FILE] admin auth add-ldap|update-ldap|list|delete ...
//	forge vmess compile|decompile|check ...
//	forge bench --url URL ...
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"forge/cmd/forge/bench"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: forge [--config FILE] COMMAND

commands:
  serve                      run the server (REST, git over HTTP, gRPC)
  migrate                    apply pending database migrations
  admin user create ...      create a user (--username --password --email [--admin]
                             [--must-change-password=false] [--access-token])
  admin user list            list users
  admin user delete --username U
  admin user change-password --username U --password P
  admin user totp enable|disable --username U
  admin auth add-ldap ...    add an LDAP source (--name --host --port --user-search-base
                             --user-filter --email-attribute [--bind-dn --bind-password-file]
                             [--security-protocol unencrypted|ldaps|starttls] ...)
  admin auth update-ldap --id N ...  change the flags given of source N
  admin auth list            list login sources (ID, Name, Type, Enabled)
  admin auth delete --id N   delete a source no user belongs to
  vmess compile|decompile|check ...   VMess inbound configuration tools
  bench --url URL ...        seed a dataset and measure a Gitea-API server against
                             a bare-HTTP ceiling (forge bench --help)

The configuration file defaults to ./custom/conf/app.ini when it exists.
`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	global := flag.NewFlagSet("forge", flag.ContinueOnError)
	global.SetOutput(stderr)
	global.Usage = func() { fmt.Fprint(stderr, usage) }
	configPath := global.String("config", "", "configuration file (INI)")
	global.StringVar(configPath, "c", "", "configuration file (INI), short form")
	if err := global.Parse(args); err != nil {
		return 2
	}
	args = global.Args()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	env := &cliEnv{configPath: *configPath, stdin: stdin, stdout: stdout, stderr: stderr}
	switch args[0] {
	case "serve", "web":
		return env.serve(args[1:])
	case "migrate":
		return env.migrate(args[1:])
	case "admin":
		return env.admin(args[1:])
	case "vmess":
		return vmessCommand(args[1:], stdin, stdout, stderr)
	case "bench":
		return bench.Run(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "forge: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}
