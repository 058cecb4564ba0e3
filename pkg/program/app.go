package program

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// App is a program put together by its app package: New wires it from
// its Config, Run serves until the context is done, Close releases what
// New opened.
type App interface {
	Run(ctx context.Context) error
	Close() error
}

// Serve builds the program with newApp from cfg, runs it until ctx is done
// and closes it: the serve command of every program.
func Serve[C any, A App](ctx context.Context, newApp func(context.Context, C) (A, error), cfg C) error {
	app, err := newApp(ctx, cfg)
	if err != nil {
		return err
	}
	return errors.Join(app.Run(ctx), app.Close())
}

// Commands runs the subcommand args[0] names with the arguments after it;
// no arguments run "serve", and help (IsHelp) answers with the Usage.
func Commands(ctx context.Context, args []string, commands map[string]RunFunc) error {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	if IsHelp(args) {
		return Usage(" [" + strings.Join(names, " | ") + "]\n\nWithout a command it runs serve. Every setting is an environment variable (see the README);\na command followed by -h says what it takes.")
	}
	name := "serve"
	if len(args) > 0 {
		name, args = args[0], args[1:]
	}
	if run, ok := commands[name]; ok {
		return run(ctx, args)
	}
	return fmt.Errorf("unknown command %q (want %s)", name, strings.Join(names, " or "))
}
