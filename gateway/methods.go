package gateway

// RESTMethods returns the full gRPC method names that some REST route
// calls: those of http_rules.yaml and the hand-written raw-file routes. The
// server's areas test uses it to find a method that has no route and is
// not declared gRPC-only.
func RESTMethods() (map[string]bool, error) {
	routes, err := loadRoutes()
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(routes))
	for _, method := range routes {
		out[method] = true
	}
	return out, nil
}
