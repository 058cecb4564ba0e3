// Command jobs serves the jobs and courses API: job postings, companies,
// education levels, public bodies, course categories and courses.
//
//	jobs [serve]                   run the HTTP server (default)
//	jobs migrate [-create-database] apply the embedded SQL migrations
package main

import (
	"github.com/municipal-apis/platform/pkg/program"
)

func main() { program.Main("jobs", realMain) }
