package stack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// stopTimeout is how long a program may drain after SIGTERM before it is killed.
const stopTimeout = 15 * time.Second

// process is one running program of the stack.
type process struct {
	name string
	cmd  *exec.Cmd
	log  *logBuffer
	done chan struct{} // closed once the program has exited
	err  error         // how it exited; read only after done is closed
	// dir, env, args and ready are how it was started and is probed, so
	// Restart can start it again; logsInfo, whether its log says where it
	// listens (waitReady).
	dir, ready string
	env, args  []string
	logsInfo   bool
	// ended is set when Kill or Stop ended it on purpose.
	ended bool
}

// command prepares the binary name of dir with args, its environment made
// of env alone (plus PATH, HOME and TMPDIR), so the caller's variables
// cannot change the stack, and its output going to log.
func command(ctx context.Context, dir, name string, env []string, log *logBuffer, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(dir, name), args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = stopTimeout
	cmd.Env = append(hostEnv(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	setProcessAttributes(cmd)
	return cmd
}

// hostEnv is the part of this process's environment the programs inherit.
func hostEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// runToEnd runs a one-off command of a program, such as migrate, and
// returns its output with the error when it fails.
func runToEnd(ctx context.Context, dir, name string, env []string, log *logBuffer, args ...string) error {
	mark := log.mark()
	if err := command(ctx, dir, name, env, log, args...).Run(); err != nil {
		return fmt.Errorf("%s %v: %w\n%s", name, args, err, log.since(mark))
	}
	return nil
}

// startProcess starts a long-running program.
func startProcess(dir, name string, env []string, log *logBuffer, args ...string) (*process, error) {
	p := &process{name: name, cmd: command(context.Background(), dir, name, env, log, args...), log: log, done: make(chan struct{}),
		dir: dir, env: env, args: args}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the program has ended, and how.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// stop asks the program to end with SIGTERM and kills it when it has not
// ended within stopTimeout. A program that had already ended, or that ends
// with a non-zero status, is reported as an error.
func (p *process) stop() error {
	if p.ended {
		return nil
	}
	if gone, err := p.exited(); gone {
		return fmt.Errorf("%s had exited before the stack was stopped: %v", p.name, err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop %s: %w", p.name, err)
	}
	select {
	case <-p.done:
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s did not stop within %v of SIGTERM and was killed", p.name, stopTimeout)
	}
	if p.err != nil {
		return fmt.Errorf("%s exited after SIGTERM: %w", p.name, p.err)
	}
	return nil
}
