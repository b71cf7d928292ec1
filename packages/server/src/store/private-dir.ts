/**
 * The mode of a directory the kernel creates for what it keeps (a data
 * directory, a backup's folder, retention's exports): only its owner may
 * list or open what is inside, since it holds every call's input and result.
 * A directory that already exists keeps its mode.
 */
export const PRIVATE_DIR_MODE = 0o700;
