use super::*;

use insta::assert_snapshot;

#[test]
fn the_socket_unit_listens_privately_under_the_runtime_folder() {
    assert_snapshot!(socket_unit(), @r#"
    # Written by `gatehouse install service`; `gatehouse uninstall service` removes it.
    [Unit]
    Description=gatehouse gateway sockets (AI coding agents' prompts)

    [Socket]
    ListenStream=%t/gatehouse/gatehouse.sock
    ListenStream=%t/gatehouse/hooks.sock
    SocketMode=0600
    DirectoryMode=0700
    RemoveOnStop=yes

    [Install]
    WantedBy=sockets.target
    "#);
}

#[test]
fn the_service_unit_runs_this_binary_without_network() {
    assert_snapshot!(service_unit(&systemd_word("/home/ada/.cargo/bin/gatehouse")), @r#"
    # Written by `gatehouse install service`; `gatehouse uninstall service` removes it.
    [Unit]
    Description=gatehouse gateway (AI coding agents' prompts)
    Requires=gatehouse.socket
    After=gatehouse.socket

    [Service]
    Type=simple
    ExecStart=/home/ada/.cargo/bin/gatehouse serve
    RestrictAddressFamilies=AF_UNIX
    NoNewPrivileges=yes
    "#);
}

#[test]
fn the_launchd_agent_keeps_serve_running() {
    assert_snapshot!(launchd_plist("/Users/ada/bin/gate&house", "/Users/ada/Library/Logs/gatehouse.log"), @r#"
    <?xml version="1.0" encoding="UTF-8"?>
    <!-- Written by `gatehouse install service`; `gatehouse uninstall service` removes it. -->
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
      <key>Label</key>
      <string>io.github.gatehouse.serve</string>
      <key>ProgramArguments</key>
      <array>
        <string>/Users/ada/bin/gate&amp;house</string>
        <string>serve</string>
      </array>
      <key>RunAtLoad</key>
      <true/>
      <key>KeepAlive</key>
      <true/>
      <key>StandardErrorPath</key>
      <string>/Users/ada/Library/Logs/gatehouse.log</string>
    </dict>
    </plist>
    "#);
}

#[test]
fn a_path_becomes_one_systemd_word() {
    assert_eq!(systemd_word("/usr/bin/gatehouse"), "/usr/bin/gatehouse");
    assert_eq!(
        systemd_word("/opt/my tools/gatehouse"),
        "\"/opt/my tools/gatehouse\""
    );
    assert_eq!(systemd_word("/opt/100%/$HOME/g"), "/opt/100%%/$$HOME/g");
    assert_eq!(systemd_word("/opt/a\"b\\c"), "\"/opt/a\\\"b\\\\c\"");
}

#[test]
fn only_files_that_start_with_the_marker_are_gatehouse_s() {
    assert!(is_ours(&socket_unit()));
    assert!(is_ours(&service_unit("/bin/gatehouse")));
    assert!(is_ours(&launchd_plist("/bin/gatehouse", "/tmp/log")));
    assert!(!is_ours("[Unit]\nDescription=my own gatehouse\n"));
}

#[test]
fn a_binary_path_with_a_control_character_is_refused_not_written_into_a_unit() {
    assert!(refuse_control_characters("/opt/my tools/gatehouse").is_ok());
    for hostile in [
        "/tmp/x\nExecStartPre=/tmp/evil/gatehouse",
        "/tmp/x\rExecStartPre=/bin/sh/gatehouse",
        "/tmp/\u{1b}]0;title\u{7}/gatehouse",
        "/tmp/a\tb/gatehouse",
    ] {
        let error = refuse_control_characters(hostile).unwrap_err().to_string();
        assert!(error.contains("move gatehouse to a plain path"), "{error}");
        assert!(
            !error.contains('\n') && !error.contains('\u{1b}'),
            "{error:?}"
        );
    }
}
