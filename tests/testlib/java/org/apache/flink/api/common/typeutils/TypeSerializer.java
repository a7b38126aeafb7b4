package org.apache.flink.api.common.typeutils;
public abstract class TypeSerializer<T> implements java.io.Serializable { private static final long serialVersionUID = 1L; }
