package main

import "github.com/urfave/cli/v2"

func newExplainCommand() *cli.Command {
	return &cli.Command{Name: "explain", Hidden: true, Action: func(*cli.Context) error { return nil }}
}
