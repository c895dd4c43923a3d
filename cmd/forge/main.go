// Command forge is the forge server and its administration tools.
package main

import (
	"fmt"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: forge serve|migrate|admin|vmess ...")
		return 2
	}
	switch args[0] {
	case "vmess":
		return vmessCommand(args[1:], os.Stdin, os.Stdout, os.Stderr)
	default:
		fmt.Fprintf(os.Stderr, "forge: unknown command %q\n", args[0])
		return 2
	}
}
