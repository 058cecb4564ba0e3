//go:build !linux

package stack

import "os/exec"

// setParentDeathSignal does nothing where the kernel offers no parent-death
// signal; Close still stops every program.
func setParentDeathSignal(*exec.Cmd) {}
