{{/*
Shared helpers. Every per-service template loops over .Values.services and calls these with
(dict "root" $ "key" $key "svc" $svc).
*/}}

{{- define "vrp.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* <fullname>-<service name>: the name of every object of one service. */}}
{{- define "vrp.serviceName" -}}
{{- printf "%s-%s" (include "vrp.fullname" .root) .svc.name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The labels of every object except the instance label (which the selector labels carry for per-service objects). */}}
{{- define "vrp.commonLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/part-of: vrp
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "vrp.labels" -}}
{{ include "vrp.commonLabels" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "vrp.selectorLabels" -}}
app.kubernetes.io/name: {{ .svc.name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{- define "vrp.serviceLabels" -}}
{{ include "vrp.commonLabels" .root }}
{{ include "vrp.selectorLabels" . }}
app.kubernetes.io/component: {{ .svc.kind }}
{{- end -}}

{{- define "vrp.image" -}}
{{- $tag := .svc.image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{- printf "%s/%s:%s" .root.Values.image.registry .svc.image.repository $tag -}}
{{- end -}}

{{- define "vrp.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "vrp.fullname" .)) -}}
{{- end -}}

{{- define "vrp.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "vrp.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/* The port that serves /metrics: ops for gRPC services, the private (admin) listener for the gateway. */}}
{{- define "vrp.metricsPort" -}}
{{- if eq .svc.kind "gateway" -}}{{ .svc.ports.admin }}{{- else -}}{{ .svc.ports.ops }}{{- end -}}
{{- end -}}

{{/* <fullname>-<service name>-headless: the Service whose DNS name lists every ready pod (gRPC round_robin). */}}
{{- define "vrp.headlessName" -}}
{{- printf "%s-headless" (include "vrp.serviceName" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The port that serves /healthz and /readyz: ops for gRPC services, http for the gateway. */}}
{{- define "vrp.probePort" -}}
{{- if eq .svc.kind "gateway" -}}{{ .svc.ports.http }}{{- else -}}{{ .svc.ports.ops }}{{- end -}}
{{- end -}}

{{/*
gRPC address of every domain service, computed from the services map:
dns:///<fullname>-<name>-headless:<grpc>. The headless Service resolves to every ready pod, so
the clients balance each call over the replicas (round_robin) and see a scale-up at the next
re-resolution (the servers age connections out). Set in the shared ConfigMap; the same variable
names in every process.
*/}}
{{- define "vrp.addressEnv" -}}
{{- $root := . -}}
{{- $addrVars := dict "listing" "LISTING_ADDR" "reservation" "RESERVATION_ADDR" "guest" "GUEST_ADDR" "pmsAdapter" "PMS_ADAPTER_ADDR" "webhook" "WEBHOOK_ADDR" -}}
{{- range $key, $var := $addrVars }}
{{- $svc := index $root.Values.services $key }}
{{ $var }}: {{ printf "dns:///%s:%v" (include "vrp.headlessName" (dict "root" $root "svc" $svc)) $svc.ports.grpc | quote }}
{{- end }}
{{- end -}}

{{/*
The env the chart computes for one service: its ports under its prefix, and (gateway) the HTTP port.
*/}}
{{- define "vrp.portEnv" -}}
{{- if eq .svc.kind "gateway" }}
{{ .svc.envPrefix }}_PORT: {{ .svc.ports.http | quote }}
{{ .svc.envPrefix }}_ADMIN_PORT: {{ .svc.ports.admin | quote }}
{{- else }}
{{ .svc.envPrefix }}_GRPC_PORT: {{ .svc.ports.grpc | quote }}
{{ .svc.envPrefix }}_OPS_PORT: {{ .svc.ports.ops | quote }}
{{- end }}
{{- end -}}

{{/* Where the secrets are mounted as files (<KEY>_FILE variables point into it). */}}
{{- define "vrp.secretDir" -}}/var/run/secrets/vrp{{- end -}}

{{/* The pods of one service by its name (a NetworkPolicy peer). */}}
{{- define "vrp.podsOf" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{/*
Who calls whom, from `services.<x>.calls` (the one table): the keys of the enabled services whose
`calls` name `.key`. The gateway calls every gRPC service.
*/}}
{{- define "vrp.callersOf" -}}
{{- $callers := list -}}
{{- range $k, $s := .root.Values.services -}}
{{- if and $s.enabled (has $.key ($s.calls | default list)) -}}
{{- $callers = append $callers $k -}}
{{- end -}}
{{- end -}}
{{- toJson $callers -}}
{{- end -}}
