package main

import (
	"fmt"
	"io"
)

// vmessCommand runs `forge vmess ...`. Placeholder until the VMess tooling lands.
func vmessCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "forge vmess: not implemented yet")
	return 2
}
