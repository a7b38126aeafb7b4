package org.apache.flink.api.common.typeutils.base;
public abstract class TypeSerializerSingleton<T> extends org.apache.flink.api.common.typeutils.TypeSerializer<T> { private static final long serialVersionUID = 1L; }
