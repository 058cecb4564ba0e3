// Command jobs serves the jobs and courses API: job postings, companies,
// education levels, public bodies, course categories and courses.
//
//	jobs [serve]                   run the HTTP server (default)
//	jobs migrate [-create-database] apply the embedded SQL migrations
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := realMain(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "jobs:", err)
		os.Exit(1)
	}
}
