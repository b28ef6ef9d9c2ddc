// `npm run lint:docs`: every relative link and heading anchor in the README and docs/ must resolve, checked in the
// working tree alone. `repository: false` keeps remark-validate-links from asking git for a remote (a worktree or an
// export has none) and from treating full GitHub URLs as local files; it never fetches a URL either way, so the check
// runs offline. Remote links are not checked: that would need the network on every `npm test`.
import remarkValidateLinks from 'remark-validate-links';

export default {
  plugins: [[remarkValidateLinks, { repository: false }]],
};
