package stack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Kill ends program name with SIGKILL, as a crash or the kernel's
// out-of-memory killer would, and returns once it has exited. Close does
// not count a program ended on purpose as a failure.
func (s *Stack) Kill(name string) error { return s.end(name, syscall.SIGKILL) }

// Stop ends program name with SIGTERM, as an orchestrator does, and returns
// once it has exited.
func (s *Stack) Stop(name string) error { return s.end(name, syscall.SIGTERM) }

// Restart starts program name again after Kill or Stop, from the same
// binary on the same address with the same environment and arguments (a
// service's database is not migrated again), and returns once it is ready
// again, as Start waits for it.
func (s *Stack) Restart(ctx context.Context, name string) error {
	i, old, err := s.process(name)
	if err != nil {
		return err
	}
	if !old.ended {
		return fmt.Errorf("stack: %s is running; Kill or Stop it before Restart", name)
	}
	from := old.log.mark()
	p, err := startProcess(old.dir, name, old.env, old.log, old.args...)
	if err != nil {
		return err
	}
	p.ready, p.logsInfo = old.ready, old.logsInfo
	s.procs[i] = p
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	if err := waitReady(ctx, p, from); err != nil {
		return fmt.Errorf("restart %s: %w", name, err)
	}
	return nil
}

// end sends sig to program name and waits until it has exited.
func (s *Stack) end(name string, sig syscall.Signal) error {
	_, p, err := s.process(name)
	if err != nil {
		return err
	}
	if p.ended {
		return fmt.Errorf("stack: %s is not running", name)
	}
	p.ended = true
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stack: signal %s: %w", name, err)
	}
	<-p.done
	return nil
}

// process returns the index in s.procs and the process of program name.
func (s *Stack) process(name string) (int, *process, error) {
	for i, p := range s.procs {
		if p.name == name {
			return i, p, nil
		}
	}
	return 0, nil, fmt.Errorf("stack: no program %q runs in this stack", name)
}
