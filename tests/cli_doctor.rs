//! `gatehouse doctor`'s last links, against a real `gatehouse web` and a loopback push service:
//! the page, the paired browsers and a test push, each with the command that fixes it when it
//! is not right, and the exit status a script reads.

use std::process::{Output, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::web_front::{http, pair_link, pair_over_http, Front, Web};
use crate::common::Gateway;
use crate::support::push_service::PushService;

/// A `PATH` with no agent on it.
const SYSTEM_PATH: &str = "/usr/bin:/bin";

fn doctor(gateway: &Gateway) -> (Output, Value) {
    let output = gateway
        .command(&["doctor", "--json"])
        .env("PATH", SYSTEM_PATH)
        .stdin(Stdio::null())
        .output()
        .expect("gatehouse doctor runs");
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!(
            "doctor --json prints JSON: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output, report)
}

/// The check named `name` in doctor's report.
fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["check"] == name)
        .unwrap_or_else(|| panic!("doctor checks {name}: {report:#}"))
}

/// A gateway and `gatehouse web` that may push to `service`.
fn front_pushing_to(service: &PushService) -> Front {
    let gateway = Gateway::start();
    let folder = gateway.sandbox.folder.path().join("config/gatehouse");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("config.toml"),
        format!("[web]\npush_endpoints = [\"{}/push/\"]\n", service.origin()),
    )
    .unwrap();
    let web = Web::start(&gateway, "127.0.0.1:0");
    Front { web, gateway }
}

/// Subscribes the paired device `token` to `endpoint`, as the page does.
fn subscribe(front: &Front, token: &str, service: &PushService, endpoint: &str) {
    let port = front.web.port();
    let host = format!("127.0.0.1:{port}");
    let body =
        json!({ "endpoint": endpoint, "keys": { "p256dh": service.p256dh, "auth": service.auth } })
            .to_string();
    let (status, reply) = http(
        port,
        &format!(
            "POST /api/push/subscribe HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    );
    assert!((200..300).contains(&status), "subscribed: {reply}");
}

#[test]
fn doctor_checks_the_page_the_paired_browsers_and_a_test_push_with_a_fix_for_each() {
    let service = PushService::start(None);
    let front = front_pushing_to(&service);
    let gateway = &front.gateway;

    let (output, report) = doctor(gateway);
    assert_eq!(output.status.code(), Some(0), "nothing fails: {report:#}");
    assert_eq!(check(&report, "gateway")["status"], "ok", "{report:#}");
    assert_eq!(check(&report, "web page")["status"], "ok", "{report:#}");
    let unpaired = check(&report, "paired devices");
    assert_eq!(unpaired["status"], "warn", "{report:#}");
    assert_eq!(unpaired["fix"], "gatehouse web pair --qr", "{report:#}");

    let token = pair_over_http(front.web.port(), &pair_link(gateway));
    subscribe(&front, &token, &service, &service.endpoint("ok", "phone"));
    let (output, report) = doctor(gateway);
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    let paired = check(&report, "paired devices");
    assert_eq!(paired["status"], "ok", "{report:#}");
    assert!(
        paired["message"]
            .as_str()
            .unwrap()
            .contains("1 paired, 1 of them gets pushes"),
        "{report:#}"
    );
    assert_eq!(check(&report, "push test")["status"], "ok", "{report:#}");
    let pushes = service.wait_for(1, Duration::from_secs(20));
    assert_eq!(pushes.len(), 1, "the test push reached the push service");

    // A push service that no longer takes the subscription: the test push fails, and so does
    // doctor, with the command that tries again.
    let second = pair_over_http(front.web.port(), &pair_link(gateway));
    subscribe(
        &front,
        &second,
        &service,
        &service.endpoint("gone", "old-phone"),
    );
    let (output, report) = doctor(gateway);
    assert_eq!(
        output.status.code(),
        Some(1),
        "a failed push fails: {report:#}"
    );
    assert_eq!(report["ok"], false);
    let push = check(&report, "push test");
    assert_eq!(push["status"], "fail", "{report:#}");
    assert!(
        push["fix"].as_str().is_some_and(|fix| !fix.is_empty()),
        "{report:#}"
    );
}
