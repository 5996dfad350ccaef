package main

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"

	weatherv1 "github.com/ferry-mcp/ferry/examples/weather/gen/weather/v1"
	"github.com/ferry-mcp/ferry/examples/weather/gen/weather/v1/weatherv1connect"
)

// maxAlerts bounds the alerts the service keeps.
const maxAlerts = 10000

// Weather implements weatherv1connect.WeatherServiceHandler with made-up
// forecasts: the same city and day always get the same weather. It is safe
// for concurrent use.
type Weather struct {
	// Now returns the current time; if nil, time.Now.
	Now func() time.Time

	mu     sync.Mutex        // guards alerts
	alerts map[string]string // city and email -> alert id
}

var _ weatherv1connect.WeatherServiceHandler = (*Weather)(nil)

// unknownCities are cities the service refuses, to show a Connect error
// reaching a model as a refusal.
var unknownCities = map[string]bool{"atlantis": true, "el dorado": true}

// GetForecast returns the forecast for req's city.
func (w *Weather) GetForecast(_ context.Context, req *connect.Request[weatherv1.GetForecastRequest]) (*connect.Response[weatherv1.GetForecastResponse], error) {
	city := strings.TrimSpace(req.Msg.GetCity())
	if unknownCities[strings.ToLower(city)] {
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("no forecast for %s: the city is not on the map", city))
	}
	days := int(req.Msg.GetDays())
	if days == 0 {
		days = 3
	}
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	today := now().UTC().Truncate(24 * time.Hour)
	resp := &weatherv1.GetForecastResponse{City: city}
	for i := range days {
		day := today.AddDate(0, 0, i)
		h := fnv.New32a()
		_, _ = h.Write([]byte(strings.ToLower(city) + day.Format(time.DateOnly)))
		n := h.Sum32()
		low := float64(int(n%25)) - 5
		resp.Days = append(resp.Days, &weatherv1.DayForecast{
			Date:  day.Format(time.DateOnly),
			LowC:  low,
			HighC: low + float64(n/25%12) + 1,
			Sky:   weatherv1.Sky(n/300%4 + 1),
		})
	}
	return connect.NewResponse(resp), nil
}

// SetAlert records an alert; the same city and email keep their id.
func (w *Weather) SetAlert(_ context.Context, req *connect.Request[weatherv1.SetAlertRequest]) (*connect.Response[weatherv1.SetAlertResponse], error) {
	key := strings.ToLower(req.Msg.GetCity()) + "\x00" + strings.ToLower(req.Msg.GetEmail())
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.alerts == nil {
		w.alerts = map[string]string{}
	}
	id, ok := w.alerts[key]
	if !ok {
		if len(w.alerts) >= maxAlerts {
			return nil, connect.NewError(connect.CodeResourceExhausted, errors.New("too many alerts; try again later"))
		}
		id = fmt.Sprintf("alert-%d", len(w.alerts)+1)
		w.alerts[key] = id
	}
	return connect.NewResponse(&weatherv1.SetAlertResponse{AlertId: id}), nil
}

// WatchForecast sends the forecast once; a real service would send one
// each time it changes. Its tool does not exist: a tool call has one
// result.
func (w *Weather) WatchForecast(ctx context.Context, req *connect.Request[weatherv1.GetForecastRequest], stream *connect.ServerStream[weatherv1.GetForecastResponse]) error {
	resp, err := w.GetForecast(ctx, req)
	if err != nil {
		return err
	}
	return stream.Send(resp.Msg)
}
