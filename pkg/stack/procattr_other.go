//go:build !linux

package stack

import "os/exec"

// setProcessAttributes does nothing where the kernel offers no parent-death
// signal; Close still stops every program.
func setProcessAttributes(*exec.Cmd) {}
