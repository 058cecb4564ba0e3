package load

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteText prints the report as tables: latency and statuses per
// operation and overall, then the errors by status.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "operation\trequests\treq/s\tsuccess\tp50 ms\tp90 ms\tp99 ms\tmax ms\tstatuses\t\n")
	for _, s := range append(slices.Clone(r.Operations), r.Overall) {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f%%\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t\n",
			s.Operation, s.Requests, s.Rate, 100*s.Success, s.P50, s.P90, s.P99, s.Max, StatusList(s.Statuses))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	fmt.Fprintf(w, "\nmarker %s, %d rows created before the load, %d created in all, asked %d req/s for %gs\n",
		r.Marker, r.Seeded, len(r.Created), r.Rate, r.Duration)
	if len(r.Errors) == 0 && len(r.Unmatched) == 0 {
		_, err := fmt.Fprintln(w, "no errors")
		return err
	}
	fmt.Fprintln(w, "\nerrors by status:")
	for _, e := range r.Errors {
		fmt.Fprintf(w, "  %s  %d × %s\n", statusName(e.Status), e.Count, e.Example)
	}
	for _, u := range r.Unmatched {
		fmt.Fprintf(w, "  unmatched 201: %s\n", u)
	}
	return nil
}

// StatusList writes statuses as "201×40 422×1", in numeric order.
func StatusList(statuses map[string]int) string {
	keys := make([]string, 0, len(statuses))
	for k := range statuses {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return x - y
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s×%d", k, statuses[k])
	}
	return strings.Join(parts, " ")
}

// statusName is the status number, or "no answer" for 0.
func statusName(status int) string {
	if status == 0 {
		return "no answer"
	}
	return strconv.Itoa(status)
}
