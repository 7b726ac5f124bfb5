use std::path::{Path, PathBuf};

use super::super::{Framework, Scan, ScanOptions, scan};
use crate::model::sitemap::{MapElement, Route};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/scan")
}

fn fixture(name: &str) -> Scan {
    let options = ScanOptions::default();
    scan(&fixtures().join(name), &options).unwrap()
}

fn patterns(scan: &Scan) -> Vec<&str> {
    scan.routes.iter().map(|r| r.pattern.as_str()).collect()
}

fn route<'a>(scan: &'a Scan, pattern: &str) -> &'a Route {
    scan.routes
        .iter()
        .find(|r| r.pattern == pattern)
        .unwrap_or_else(|| panic!("no {pattern} in {:?}", patterns(scan)))
}

fn element(role: &str, name: &str, test_id: Option<&str>) -> MapElement {
    MapElement {
        role: role.to_owned(),
        name: name.to_owned(),
        test_id: test_id.map(str::to_owned),
    }
}

#[test]
fn a_react_router_apps_route_trees_and_objects_give_exactly_its_pages() {
    let found = fixture("react-router");
    assert_eq!(
        patterns(&found),
        [
            "/",
            "/*splat",
            "/:lang/help",
            "/admin",
            "/admin/audit-log",
            "/admin/users",
            "/admin/users/:userId",
            "/help",
            "/inbox",
            "/login",
            "/projects",
            "/projects/:projectId",
            "/projects/:projectId/members",
            "/projects/:projectId/tasks",
            "/projects/:projectId/tasks/:taskId",
            "/projects/new",
            "/reports/*splat",
            "/settings",
            "/settings/billing",
            "/settings/profile",
        ]
    );
    assert_eq!(found.frameworks, [Framework::ReactRouter]);
    let login = route(&found, "/login");
    assert_eq!(login.file, "src/routes/Login.tsx");
    assert_eq!(
        login.elements,
        [
            element("button", "Sign in", Some("login-submit")),
            element("checkbox", "Remember me", None),
            element("textbox", "Password", None),
            element("textbox", "email", None),
        ]
    );
    assert_eq!(
        route(&found, "/help").file,
        "src/routes/Help.jsx",
        "a lazy import"
    );
    assert_eq!(
        route(&found, "/admin/audit-log").file,
        "src/admin/AuditLog.tsx"
    );
    let users = route(&found, "/admin/users");
    assert_eq!(users.file, "src/admin/Users.tsx", "Component: Users");
    assert!(
        users
            .elements
            .contains(&element("textbox", "Search users", None))
    );
    assert!(route(&found, "/projects/new").elements.contains(&element(
        "button",
        "Create project",
        None
    )));
    assert_eq!(found.unresolved.len(), 1, "{:?}", found.unresolved);
    assert_eq!(found.unresolved[0].file, "src/App.tsx");
    assert!(
        found.unresolved[0].why.contains("ROUTES.legacyExport"),
        "{:?}",
        found.unresolved
    );
    assert!(found.files >= 15, "{}", found.files);
}

#[test]
fn a_next_apps_directories_give_exactly_its_pages() {
    let found = fixture("next");
    assert_eq!(
        patterns(&found),
        [
            "/",
            "/about",
            "/account",
            "/blog/:slug",
            "/docs/*all",
            "/legacy",
            "/legacy/:id",
            "/legacy/api-docs",
            "/login",
            "/shop",
            "/shop/*filters",
        ]
    );
    assert_eq!(found.frameworks, [Framework::NextApp, Framework::NextPages]);
    let shop = route(&found, "/shop/*filters");
    assert_eq!(shop.file, "app/shop/[[...filters]]/page.tsx");
    assert_eq!(
        shop.elements,
        [
            element("button", "Apply filters", None),
            element("combobox", "Sort", None),
            element("searchbox", "Search products", None),
            element("switch", "In stock only", None),
        ]
    );
    assert_eq!(route(&found, "/login").file, "app/@modal/login/page.tsx");
    assert_eq!(route(&found, "/legacy/:id").file, "pages/legacy/[id].tsx");
    assert!(route(&found, "/account").elements.contains(&element(
        "button",
        "Sign out",
        Some("sign-out")
    )));
    assert!(found.unresolved.is_empty(), "{:?}", found.unresolved);
}

#[test]
fn route_objects_in_place_nested_and_relative_join_their_parents() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("package.json"),
        r#"{ "dependencies": { "react-router": "7.0.0" } }"#,
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/router.js"),
        r#"import { createBrowserRouter } from "react-router";
export const router = createBrowserRouter([
  { path: "/", children: [
    { index: true },
    { path: "teams/:teamId", children: [{ path: "edit" }, { path: "/absolute" }] },
    { path: someVariable },
  ] },
]);
"#,
    )
    .unwrap();
    let found = scan(dir.path(), &ScanOptions::default()).unwrap();
    // teams/:teamId has children and nothing of its own to render: a prefix, not a page.
    assert_eq!(patterns(&found), ["/", "/absolute", "/teams/:teamId/edit"]);
    assert_eq!(found.unresolved.len(), 1);
    assert!(found.unresolved[0].why.contains("someVariable"));
    assert_eq!(
        (found.unresolved[0].file.as_str(), found.unresolved[0].line),
        ("src/router.js", 6)
    );
}
