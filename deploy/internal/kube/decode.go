package kube

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

// kinds maps "apiVersion/kind" to a constructor of its typed struct; a kind
// missing here is refused, so every manifest is checked against a schema.
var kinds = map[string]func() any{
	"v1/ConfigMap":                            func() any { return &corev1.ConfigMap{} },
	"v1/Namespace":                            func() any { return &corev1.Namespace{} },
	"v1/Secret":                               func() any { return &corev1.Secret{} },
	"v1/Service":                              func() any { return &corev1.Service{} },
	"apps/v1/Deployment":                      func() any { return &appsv1.Deployment{} },
	"batch/v1/Job":                            func() any { return &batchv1.Job{} },
	"autoscaling/v2/HorizontalPodAutoscaler":  func() any { return &autoscalingv2.HorizontalPodAutoscaler{} },
	"policy/v1/PodDisruptionBudget":           func() any { return &policyv1.PodDisruptionBudget{} },
	"networking.k8s.io/v1/Ingress":            func() any { return &networkingv1.Ingress{} },
	"networking.k8s.io/v1/NetworkPolicy":      func() any { return &networkingv1.NetworkPolicy{} },
	"gateway.networking.k8s.io/v1/HTTPRoute":  func() any { return &gatewayv1.HTTPRoute{} },
	"monitoring.coreos.com/v1/PrometheusRule": func() any { return &PrometheusRule{} },
}

// Decode strictly decodes one YAML object into the typed struct of its kind:
// unknown or duplicate fields and unknown kinds are errors.
func Decode(data []byte) (Object, error) {
	var head struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        metav1.ObjectMeta `json:"metadata"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return Object{}, fmt.Errorf("decode type: %w", err)
	}
	newValue, ok := kinds[head.APIVersion+"/"+head.Kind]
	if !ok {
		return Object{}, fmt.Errorf("kind %s %s is not one the platform deploys", head.APIVersion, head.Kind)
	}
	v := newValue()
	if err := yaml.UnmarshalStrict(data, v); err != nil {
		return Object{}, fmt.Errorf("strict decode %s: %w", head.Kind, err)
	}
	return Object{
		APIVersion: head.APIVersion,
		Kind:       head.Kind,
		Namespace:  head.Metadata.Namespace,
		Name:       head.Metadata.Name,
		Value:      v,
	}, nil
}
