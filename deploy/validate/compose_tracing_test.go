package validate

import (
	"os"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// collectorConfig is the part of the OpenTelemetry Collector's
// configuration the compose stack relies on.
type collectorConfig struct {
	Receivers map[string]struct {
		Protocols map[string]struct {
			Endpoint string `json:"endpoint"`
		} `json:"protocols"`
	} `json:"receivers"`
	Exporters map[string]struct {
		Endpoint string `json:"endpoint"`
		TLS      struct {
			Insecure bool `json:"insecure"`
		} `json:"tls"`
	} `json:"exporters"`
	Service struct {
		Pipelines map[string]struct {
			Receivers []string `json:"receivers"`
			Exporters []string `json:"exporters"`
		} `json:"pipelines"`
	} `json:"service"`
}

func TestComposeSendsTracesToJaeger(t *testing.T) {
	t.Parallel()
	p := mustLoadCompose(t)
	for _, name := range []string{"gateway", "jobs", "search-admin"} {
		if got := env(service(t, p, name), "OTEL_EXPORTER_OTLP_ENDPOINT"); got != "http://otel-collector:4318" {
			t.Errorf("%s exports spans to %q, want the collector's OTLP/HTTP port http://otel-collector:4318", name, got)
		}
	}
	for name, s := range p.Services {
		for dep := range s.DependsOn {
			if tracingBackends[dep] && !tracingBackends[name] {
				t.Errorf("%s waits for %s: a program must start without its trace backend", name, dep)
			}
		}
	}

	collector := service(t, p, "otel-collector")
	var config string
	for _, v := range collector.Volumes {
		if v.Target == "/etc/otelcol/config.yaml" && v.ReadOnly {
			config = v.Source
		}
	}
	if config == "" || !slices.Contains(collector.Command, "--config=/etc/otelcol/config.yaml") {
		t.Fatalf("the collector does not run with a mounted config: volumes %+v, command %q", collector.Volumes, collector.Command)
	}
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	var cfg collectorConfig
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("collector config: %v", err)
	}
	if ep := cfg.Receivers["otlp"].Protocols["http"].Endpoint; !strings.HasSuffix(ep, ":4318") || strings.HasPrefix(ep, "localhost") || strings.HasPrefix(ep, "127.") {
		t.Errorf("the collector's OTLP/HTTP receiver listens on %q, want :4318 on every interface", ep)
	}
	traces, ok := cfg.Service.Pipelines["traces"]
	if !ok || !slices.Contains(traces.Receivers, "otlp") {
		t.Fatalf("no traces pipeline from the otlp receiver: %+v", cfg.Service.Pipelines)
	}
	toJaeger := false
	for _, name := range traces.Exporters {
		exp := cfg.Exporters[name]
		toJaeger = toJaeger || exp.Endpoint == "jaeger:4317" && exp.TLS.Insecure
	}
	if !toJaeger {
		t.Errorf("the traces pipeline exports to %v (%+v), none to Jaeger's OTLP gRPC port jaeger:4317", traces.Exporters, cfg.Exporters)
	}
	if d, ok := collector.DependsOn["jaeger"]; !ok || d.Condition != "service_started" {
		t.Errorf("the collector starts without waiting for Jaeger: %+v", collector.DependsOn)
	}
	jaeger := service(t, p, "jaeger")
	if !strings.HasPrefix(jaeger.Image, "jaegertracing/jaeger:2.") {
		t.Errorf("Jaeger image %q, want the all-in-one jaegertracing/jaeger:2.x, which receives OTLP", jaeger.Image)
	}
}
