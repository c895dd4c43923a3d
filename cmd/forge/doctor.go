package main

func (e *cliEnv) doctor(args []string) int { return 0 }
