package main

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// startWeather builds examples/weather, a module of its own, and runs its
// Connect service on a free loopback port with the API key k-ada; it
// returns the service's base URL.
func startWeather(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "weather")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "..", "examples", "weather")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/weather: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.CommandContext(t.Context(), bin, "-addr", addr)
	cmd.Env = append(os.Environ(), "WEATHER_KEYS=k-ada")
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := http.Get(base + "/")
		if err == nil {
			resp.Body.Close()
			return base
		}
		if time.Now().After(deadline) {
			t.Fatalf("examples/weather did not answer at %s: %v", base, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ferry serve -proto serves the weather service's unary methods from its
// .proto file, calling the running service over Connect: arguments
// checked against the buf.validate rules first, the service's refusals
// read as refusals, and its key, from the environment, sent as the
// operator configured it.
func TestServeProtoAgainstTheWeatherService(t *testing.T) {
	base := startWeather(t)
	proto := filepath.Join("..", "..", "examples", "weather", "proto", "weather", "v1", "weather.proto")
	args := []string{"-proto", proto, "-upstream", base, "-http", "127.0.0.1:0", "-writes"}

	s := startServe(t, append(args, "-upstream-header-env", "WEATHER_AUTH"), "WEATHER_AUTH", "Authorization: Bearer k-ada")
	if diff := cmp.Diff([]string{"get_forecast", "set_alert"}, s.tools(t).names()); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if !strings.Contains(s.stderr.String(), "serving weather.v1.WeatherService from "+base+" over connect") {
		t.Errorf("stderr: %s", s.stderr.String())
	}
	res := s.call(t, "get_forecast", map[string]any{"city": "Lisbon", "days": 2})
	if days, _ := res.Structured["days"].([]any); res.IsError || res.Structured["city"] != "Lisbon" || len(days) != 2 {
		t.Errorf("get_forecast: %+v", res)
	}
	res = s.call(t, "get_forecast", map[string]any{"city": "L1sbon", "days": 9})
	if !res.IsError || !strings.Contains(res.text(), "city: a city name has no digits") || !strings.Contains(res.text(), "days: ") {
		t.Errorf("get_forecast with bad arguments: %q", res.text())
	}
	res = s.call(t, "get_forecast", map[string]any{"city": "Atlantis"})
	if want := "not-found: no forecast for Atlantis: the city is not on the map"; !res.IsError || !strings.HasPrefix(res.text(), want) {
		t.Errorf("get_forecast Atlantis: %q, want %q", res.text(), want)
	}
	res = s.call(t, "set_alert", map[string]any{"city": "Lisbon", "email": "ada@example.com", "below_c": 5})
	if res.IsError || res.Structured["alertId"] == nil {
		t.Errorf("set_alert with the configured key: %+v", res)
	}

	// Without the configured key, the MCP client's own Authorization does
	// not reach the service: it refuses.
	anon := startServe(t, args)
	res = anon.call(t, "set_alert", map[string]any{"city": "Lisbon", "email": "ada@example.com"}, "Authorization", "Bearer k-ada")
	if !res.IsError || !strings.Contains(res.text(), "forbidden: setting alerts needs an API key") {
		t.Errorf("set_alert without a configured key: %q", res.text())
	}

	ro := startServe(t, []string{"-proto", proto, "-upstream", base, "-http", "127.0.0.1:0"})
	if diff := cmp.Diff([]string{"get_forecast"}, ro.tools(t).names()); diff != "" {
		t.Errorf("read-only tools (-want +got):\n%s", diff)
	}
}
